package dev.sextant.attestation.verify.attacks;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.Mutation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.CountedPathBuilds;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.AttestationDocument;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attacks on the verifier's cache of accepted EK/AK certificate chains: the cache may
 * only save parsing and path building for the exact certificate bytes it has accepted before. In
 * every row the genuine node has been verified first, so its chain is cached. The verifier's path
 * builds are counted: a refusal alone cannot tell "checked in full" from "answered by the cache",
 * the number of paths built for a document can.
 */
@DisplayName("Attacks on the cache of accepted EK/AK chains")
class ChainCacheAttacksTest {
    private static final Purpose PURPOSE = Purpose.ATLS_SERVER;
    private static final byte[] NONCE = "nonce of this handshake".getBytes(StandardCharsets.UTF_8);
    private static final byte[] USER_DATA = "SHA-256 of this TLS key's SPKI".getBytes(StandardCharsets.UTF_8);
    private static final String CA_NAME = "sextant-test-ek-ca-cache";
    /** A document's full check builds two paths, the EK certificate's and the AK certificate's; a cache hit none. */
    private static final int FULL_CHECK = 2;

    private static TestPki trustedCa;
    private static SoftwareTpmAttester genuine;
    private final CountedPathBuilds paths = new CountedPathBuilds();
    private DocumentVerifier verifier;
    private AttestationDocument genuineDoc;

    @BeforeAll
    static void node() {
        trustedCa = new TestPki(CA_NAME);
        genuine = new SoftwareTpmAttester(trustedCa, SoftwareTpmOptions.defaults());
    }

    @BeforeEach
    void verifyTheGenuineNodeOnce() throws Exception {
        verifier = paths.verifier(new VerifierPolicy(genuine.measurements(), AkTrust.ekCa(genuine.anchors())));
        genuineDoc = genuine.attest(PURPOSE, NONCE, USER_DATA);
        verifier.verify(genuineDoc.toByteArray(), PURPOSE, NONCE, USER_DATA);
        assertEquals(FULL_CHECK, paths.builds(), "the genuine node's first document is checked in full");
    }

    @Test
    @DisplayName("another AK presented with the genuine node's cached certificates is refused: they certify another key")
    void cachedCertificatesDoNotVouchForAnotherAk() {
        SoftwareTpmAttester attacker = new SoftwareTpmAttester(new TestPki("attacker-ca"), SoftwareTpmOptions.defaults());
        AttestationDocument borrowed = attacker.attest(PURPOSE, NONCE, USER_DATA).toBuilder()
                .setEkCertificate(genuineDoc.getEkCertificate()).setAkCertificate(genuineDoc.getAkCertificate()).build();

        assertEquals(0, pathsBuiltRefusing(borrowed, Reason.UNTRUSTED_AK, "certifies another key"),
                "the borrowed certificates are a cache hit");
    }

    @Test
    @DisplayName("a forged AK certificate for the genuine AK, from a CA of the same name, is refused: new bytes are checked in full")
    void forgedAkCertificateIsACacheMiss() throws Exception {
        X509Certificate ek = x509(genuineDoc.getEkCertificate());
        X509Certificate ak = x509(genuineDoc.getAkCertificate());
        X509Certificate forged = new TestPki(CA_NAME).issueAk(ak.getPublicKey(), genuine.akName(), ek);
        AttestationDocument doc = genuine.attest(PURPOSE, NONCE, USER_DATA).toBuilder()
                .setAkCertificate(ByteString.copyFrom(forged.getEncoded())).build();

        assertEquals(FULL_CHECK, pathsBuiltRefusing(doc, Reason.UNTRUSTED_AK, "does not chain to a configured EK CA"));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Mutation.class, names = {"WRONG_AK", "BROKEN_BINDING"})
    @DisplayName("a document refused once, whose certificates chain to the EK CA, is checked in full again: a failed verification leaves nothing to hit")
    void failedVerificationIsNotRemembered(Mutation defect) {
        SoftwareTpmAttester refused = new SoftwareTpmAttester(trustedCa, SoftwareTpmOptions.defaults().with(defect));
        AttestationDocument doc = refused.attest(PURPOSE, NONCE, USER_DATA);
        String reason = defect == Mutation.WRONG_AK ? "certifies another key" : "binding names another AK";

        assertEquals(FULL_CHECK, pathsBuiltRefusing(doc, Reason.UNTRUSTED_AK, reason), "first refusal");
        assertEquals(FULL_CHECK, pathsBuiltRefusing(doc, Reason.UNTRUSTED_AK, reason), "second refusal, not a cache hit");
    }

    @Test
    @DisplayName("the genuine node presenting its AK under another name (another machine to the join service) is refused on a cache hit: the AK binding names another AK")
    void cachedChainStillChecksTheBinding() {
        byte[] akPublic = genuineDoc.getAkPublic().toByteArray();
        akPublic[6] ^= 0x04; // objectAttributes (Part 2 §12.2.4, bytes 4..7): noDA, bit 10; same key, another name
        AttestationDocument renamed = genuine.attest(PURPOSE, NONCE, USER_DATA).toBuilder()
                .setAkPublic(ByteString.copyFrom(akPublic)).build();

        assertEquals(0, pathsBuiltRefusing(renamed, Reason.UNTRUSTED_AK, "binding names another AK"),
                "the genuine certificates are a cache hit");
    }

    @Test
    @DisplayName("a cache hit still checks the quote: a stale nonce under the genuine cached chain is refused")
    void cacheHitStillChecksFreshness() {
        AttestationDocument stale = genuine.attest(PURPOSE, "an earlier nonce".getBytes(StandardCharsets.UTF_8), USER_DATA);

        assertEquals(0, pathsBuiltRefusing(stale, Reason.NONCE_MISMATCH, "stale or replayed"),
                "the genuine certificates are a cache hit");
    }

    @Test
    @DisplayName("a machine whose certificates chain to the EK CA but whose quote fails the policy (another image) is checked in full again: only a document that verified as a whole is remembered")
    void chainOfARefusedQuoteIsNotRemembered() {
        byte[] other = new byte[32];
        java.util.Arrays.fill(other, (byte) 0x16);
        SoftwareTpmAttester otherImage = new SoftwareTpmAttester(trustedCa, SoftwareTpmOptions.defaults().withPcr(16, other));
        AttestationDocument doc = otherImage.attest(PURPOSE, NONCE, USER_DATA);

        assertEquals(FULL_CHECK, pathsBuiltRefusing(doc, Reason.PCR_MISMATCH, "PCR 16"), "first refusal");
        assertEquals(FULL_CHECK, pathsBuiltRefusing(doc, Reason.PCR_MISMATCH, "PCR 16"), "second refusal, not a cache hit");
    }

    /** Verifies {@code doc}, expects the refusal, and returns how many certificate paths that verification built. */
    private int pathsBuiltRefusing(AttestationDocument doc, Reason reason, String fragment) {
        int before = paths.builds();
        AttestationRejected e = assertThrows(AttestationRejected.class,
                () -> verifier.verify(doc.toByteArray(), PURPOSE, NONCE, USER_DATA));
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
        return paths.builds() - before;
    }

    private static X509Certificate x509(ByteString der) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der.toByteArray()));
    }
}
