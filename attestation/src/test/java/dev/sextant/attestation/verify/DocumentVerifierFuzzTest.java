package dev.sextant.attestation.verify;

import dev.sextant.attestation.Purpose;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.FuzzSeeds;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.TreeMap;

/**
 * Fuzz target for the verifier entry point: any bytes either verify or raise AttestationRejected.
 * The policy trusts the committed fuzz CA, so the seed documents (FuzzSeeds) reach every check.
 */
class DocumentVerifierFuzzTest {
    private static final DocumentVerifier VERIFIER = new DocumentVerifier(new VerifierPolicy(
            new Measurements(Variant.QEMU_VTPM, new TreeMap<>(java.util.Map.of(0, new ExpectedValue(new byte[32], false)))),
            AkTrust.ekCa(List.of(fuzzCa()))));

    @FuzzTest(maxDuration = "60s")
    void verify(byte[] document) {
        try {
            VERIFIER.verify(document, Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA);
        } catch (AttestationRejected expected) {
            // The one declared outcome besides acceptance.
        }
    }

    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.DisplayName("the committed valid seed document verifies, so the fuzzer starts past every check")
    void validSeedVerifies() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("DocumentVerifierFuzzTestInputs/verify/valid")) {
            org.junit.jupiter.api.Assertions.assertEquals(24,
                    VERIFIER.verify(in.readAllBytes(), Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA).pcrs().size());
        }
    }

    private static X509Certificate fuzzCa() {
        try (InputStream in = DocumentVerifierFuzzTest.class.getResourceAsStream("/fixtures/fuzz/ek-ca.der")) {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(in.readAllBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (CertificateException e) {
            throw new IllegalStateException(e);
        }
    }
}
