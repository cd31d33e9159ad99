package dev.sextant.attestation.verify;

import dev.sextant.attestation.Purpose;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.FuzzSeeds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Fuzz target for the verifier entry point: any bytes either verify or raise AttestationRejected.
 * The policy trusts the two committed EK CAs, the software TPM's and the real swtpm's (FuzzSeeds,
 * tpm-manufacturer's SwtpmFuzzSeeds), so the seed documents reach every check.
 */
class DocumentVerifierFuzzTest {
    private static final DocumentVerifier VERIFIER = new DocumentVerifier(new VerifierPolicy(
            new Measurements(Variant.QEMU_VTPM, new TreeMap<>(java.util.Map.of(0, new ExpectedValue(new byte[32], false)))),
            AkTrust.ekCa(List.of(certificate("ek-ca.der"), certificate("swtpm-ek-ca.der")))));

    @FuzzTest(maxDuration = "60s")
    void verify(byte[] document) {
        try {
            VERIFIER.verify(document, Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA);
        } catch (AttestationRejected expected) {
            // The one declared outcome besides acceptance.
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
            "valid, ACCEPTED",
            "swtpm-ecc-valid, ACCEPTED",
            "swtpm-rsa-valid, ACCEPTED",
            "swtpm-ecc-batched, ACCEPTED",
            "swtpm-rsa-batched, ACCEPTED",
            "swtpm-ecc-no-event-log, ACCEPTED",
            "swtpm-ecc-other-purpose, WRONG_PURPOSE",
            "swtpm-ecc-other-nonce, NONCE_MISMATCH",
            "swtpm-ecc-other-user-data, KEY_BINDING",
            "swtpm-ecc-real-boot-log, EVENT_LOG_MISMATCH",
            "swtpm-rsa-pcr0-measured, PCR_MISMATCH",
            "wrong_ak, UNTRUSTED_AK",
            "foreign_ca, UNTRUSTED_AK",
            "broken_binding, UNTRUSTED_AK",
            "unrestricted_ak, UNTRUSTED_AK",
            "stale_nonce, NONCE_MISMATCH",
            "other_purpose, WRONG_PURPOSE",
            "other_user_data, KEY_BINDING",
            "flip_signature, BAD_SIGNATURE",
            "extra_pcr, PCR_DIGEST_MISMATCH",
            "missing_pcr, PCR_DIGEST_MISMATCH",
            "partial_selection, PCR_DIGEST_MISMATCH",
            "bad_pcr_digest, PCR_DIGEST_MISMATCH",
            "wrong_variant, WRONG_VARIANT",
            "tamper_event_log, EVENT_LOG_MISMATCH"})
    @DisplayName("each committed seed document reaches the check its name promises, so the fuzzer starts past the earlier ones")
    void seedReachesItsCheck(String seed, String outcome) throws Exception {
        byte[] doc;
        try (InputStream in = getClass().getResourceAsStream("DocumentVerifierFuzzTestInputs/verify/" + seed)) {
            assertNotNull(in, "seed " + seed + " is committed");
            doc = in.readAllBytes();
        }
        if (outcome.equals("ACCEPTED")) {
            assertEquals(24, VERIFIER.verify(doc, Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA).pcrs().size());
        } else {
            AttestationRejected e = assertThrows(AttestationRejected.class,
                    () -> VERIFIER.verify(doc, Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA));
            assertEquals(Reason.valueOf(outcome), e.reason(), e.getMessage());
        }
    }

    private static X509Certificate certificate(String name) {
        try (InputStream in = DocumentVerifierFuzzTest.class.getResourceAsStream("/fixtures/fuzz/" + name)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(in.readAllBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (CertificateException e) {
            throw new IllegalStateException(e);
        }
    }
}
