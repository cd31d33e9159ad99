package dev.sextant.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the boot tests find the node image: {@code -Dsextant.image.dir=DIR} (the output of
 * {@code sextant image build --out DIR}), {@code -Dsextant.image=FILE}, or else the CLI's default
 * {@code <repo>/out/image} and the old script's {@code <repo>/.build/image}.
 */
final class BootImage {
    private BootImage() {}

    /** The image.raw to boot; skips the calling test, printing why, when there is none. */
    static Path locateOrSkip(String test) {
        List<Path> candidates = candidates();
        Path found = candidates.stream().filter(Files::isReadable).findFirst().orElse(null);
        String reason = "no node image at " + candidates + "; build one with 'bin/sextant image build --out DIR'"
                + " and pass -Dsextant.image.dir=DIR";
        if (found == null) {
            System.out.println("SKIP " + test + ": " + reason);
        }
        assumeTrue(found != null, reason);
        System.out.println(test + ": booting " + found);
        return found;
    }

    private static List<Path> candidates() {
        String dir = System.getProperty("sextant.image.dir", "");
        String file = System.getProperty("sextant.image", "");
        List<Path> paths = new ArrayList<>();
        if (!dir.isBlank()) {
            paths.add(Path.of(dir, "image.raw"));
        }
        if (!file.isBlank()) {
            paths.add(Path.of(file));
        }
        if (paths.isEmpty()) {
            for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
                if (Files.exists(d.resolve("mkosi/mkosi.conf"))) {
                    paths.add(d.resolve("out/image/image.raw"));
                    paths.add(d.resolve(".build/image/image.raw"));
                    break;
                }
            }
        }
        return paths;
    }
}
