package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.testing.Fixtures;
import dev.sextant.measuredboot.testing.Tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Not a test: {@code main} builds a ~70 MB UKI (Debian kernel + random initrd) with ukify and
 * prints the time to predict all PCRs next to {@code sha256sum} of the same file. Run with
 * {@code mvn -pl measured-boot test-compile exec:java}-like tooling or from the IDE.
 */
public final class PredictBenchmark {
    private PredictBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("bench");
        Path initrd = dir.resolve("initrd");
        byte[] random = new byte[56 << 20];
        new Random(1).nextBytes(random);
        Files.write(initrd, random);
        Path uki = Fixtures.ukify(dir, Fixtures.kernel(), initrd, "console=ttyS0", "ID=bench\n");
        System.out.printf("UKI: %d bytes%n", Files.size(uki));
        for (int round = 1; round <= 3; round++) {
            long t0 = System.nanoTime();
            try (FileSource src = FileSource.open(uki)) {
                new PcrPredictor().predict(src);
            }
            long t1 = System.nanoTime();
            Tools.run(dir, "sha256sum", uki.toString()).ok();
            long t2 = System.nanoTime();
            System.out.printf("round %d: predict PCR 4/9/11 %d ms, sha256sum %d ms%n", round, (t1 - t0) / 1_000_000,
                    (t2 - t1) / 1_000_000);
        }
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
