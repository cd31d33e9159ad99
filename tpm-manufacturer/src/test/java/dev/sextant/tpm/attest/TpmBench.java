package dev.sextant.tpm.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.tpm.command.AkTemplate;
import dev.sextant.tpm.command.CreatedPrimary;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;

import java.nio.file.Path;

/**
 * Prints how long a test swtpm takes to come up and how fast it quotes. Not a test: from the
 * repository root run {@code mvn -q -o -pl tpm-manufacturer test-compile dependency:build-classpath
 * -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test}, then in tpm-manufacturer/ run {@code java -cp
 * target/classes:target/test-classes:$(cat target/cp.txt) dev.sextant.tpm.attest.TpmBench [iterations]}.
 */
public final class TpmBench {
    private TpmBench() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        long t0 = System.nanoTime();
        try (Swtpm bare = Swtpm.start()) {
            System.out.printf("swtpm start (setup + EK cert + launch): %.0f ms%n", ms(t0));
        }
        t0 = System.nanoTime();
        try (Swtpm swtpm = Swtpm.provisioned()) {
            System.out.printf("swtpm provisioned (start + AK certificate): %.0f ms%n", ms(t0));
            TpmClient tpm = swtpm.client();
            t0 = System.nanoTime();
            try (TpmAttester attester = new TpmAttester(tpm, Path.of("/nonexistent"))) {
                System.out.printf("TpmAttester construction (CreatePrimary AK + 2 NV reads): %.0f ms%n", ms(t0));
                quotes(tpm, n);
                attests(attester, n);
            }
        }
    }

    /** Quotes with each AK template in turn, the RSA one being the baseline of the ECC one. */
    private static void quotes(TpmClient tpm, int n) throws Exception {
        for (AkTemplate template : AkTemplate.values()) {
            long t0 = System.nanoTime();
            CreatedPrimary ak = tpm.createAk(template);
            double created = ms(t0);
            try {
                tpm.quote(ak.handle(), new byte[32]);   // warm-up
                t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    tpm.quote(ak.handle(), new byte[32]);
                }
                System.out.printf("TPM2_Quote, %s AK (CreatePrimary %.0f ms): %.1f quotes/s (%.2f ms each, %d quotes)%n",
                        template, created, n / (ms(t0) / 1000), ms(t0) / n, n);
            } finally {
                tpm.flushContext(ak.handle());
            }
        }
    }

    private static void attests(TpmAttester attester, int n) throws Exception {
        attester.attest(Purpose.ATLS_SERVER, new byte[32], new byte[32]);   // warm-up
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            attester.attest(Purpose.ATLS_SERVER, new byte[32], new byte[32]);
        }
        System.out.printf("attest(): %.2f ms per document (quote + 3 PCR_Read, %d documents)%n", ms(t0) / n, n);
    }

    private static double ms(long since) {
        return (System.nanoTime() - since) / 1e6;
    }
}
