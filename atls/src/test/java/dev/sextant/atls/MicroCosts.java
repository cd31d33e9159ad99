package dev.sextant.atls;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Qualification;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.AttestationVerifier;

import java.security.KeyPair;
import java.security.SecureRandom;

/**
 * Single-thread costs of the pieces an aTLS handshake adds, so the bench's totals can be
 * explained: mint (P-256 keygen + self-signed certificate), attest, verify.
 */
final class MicroCosts {
    /** One operation whose cost is measured. */
    interface Op {
        void run() throws Exception;
    }

    private MicroCosts() {}

    static void print(double seconds, Attester attester, AttestationVerifier verifier) throws Exception {
        CertificateMinter minter = CertificateMinter.createDefault();
        byte[] nonce = new byte[32];
        new SecureRandom().nextBytes(nonce);
        KeyPair keys = minter.newKeyPair();
        byte[] spkiHash = Sha256.of(keys.getPublic().getEncoded());
        byte[] document = attester.attest(Purpose.ATLS_SERVER, nonce, spkiHash).toByteArray();
        System.out.printf("%nsingle-thread costs (ms/op, %.0f s each after as long a warm-up):%n", seconds);
        report("mint: P-256 keygen + self-signed cert (BC)", seconds,
                () -> minter.certify(minter.newKeyPair(), Variant.QEMU_VTPM, document));
        report("attest: software TPM (one ECDSA P-256 signature)", seconds,
                () -> attester.attest(Purpose.ATLS_SERVER, nonce, spkiHash));
        // The purpose label's whole cost: one SHA-256 over label, nonce and SPKI hash, length-prefixed.
        report("qualify: purpose-bound qualifying data (one SHA-256)", seconds,
                () -> Qualification.of(Purpose.ATLS_SERVER, nonce, spkiHash));
        report("verify: DocumentVerifier (chains, quote, event log)", seconds,
                () -> verifier.verify(document, Purpose.ATLS_SERVER, nonce, spkiHash));
        System.out.printf("  (attested document: %d bytes)%n", document.length);
    }

    private static void report(String what, double seconds, Op op) throws Exception {
        loop(seconds, op);
        long[] counted = loop(seconds, op);
        System.out.printf("  %-56s %8.3f%n", what, counted[1] / 1e6 / counted[0]);
    }

    private static long[] loop(double seconds, Op op) throws Exception {
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        long n = 0;
        while (System.nanoTime() < deadline) {
            op.run();
            n++;
        }
        return new long[] {n, System.nanoTime() - start};
    }
}
