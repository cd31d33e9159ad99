package dev.sextant.attestation.verify.attacks;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.Mutation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.AttestationDocument;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

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
 * every row the genuine node has been verified first, so its chain is cached.
 */
@DisplayName("Attacks on the cache of accepted EK/AK chains")
class ChainCacheAttacksTest {
    private static final Purpose PURPOSE = Purpose.ATLS_SERVER;
    private static final byte[] NONCE = "nonce of this handshake".getBytes(StandardCharsets.UTF_8);
    private static final byte[] USER_DATA = "SHA-256 of this TLS key's SPKI".getBytes(StandardCharsets.UTF_8);
    private static final String CA_NAME = "sextant-test-ek-ca-cache";

    private static TestPki trustedCa;
    private static SoftwareTpmAttester genuine;
    private DocumentVerifier verifier;
    private AttestationDocument genuineDoc;

    @BeforeAll
    static void node() {
        trustedCa = new TestPki(CA_NAME);
        genuine = new SoftwareTpmAttester(trustedCa, SoftwareTpmOptions.defaults());
    }

    @BeforeEach
    void verifyTheGenuineNodeOnce() throws Exception {
        verifier = new DocumentVerifier(new VerifierPolicy(genuine.measurements(), AkTrust.ekCa(genuine.anchors())));
        genuineDoc = genuine.attest(PURPOSE, NONCE, USER_DATA);
        verifier.verify(genuineDoc.toByteArray(), PURPOSE, NONCE, USER_DATA);
    }

    @Test
    @DisplayName("another AK presented with the genuine node's cached certificates is refused: they certify another key")
    void cachedCertificatesDoNotVouchForAnotherAk() {
        SoftwareTpmAttester attacker = new SoftwareTpmAttester(new TestPki("attacker-ca"), SoftwareTpmOptions.defaults());
        AttestationDocument borrowed = attacker.attest(PURPOSE, NONCE, USER_DATA).toBuilder()
                .setEkCertificate(genuineDoc.getEkCertificate()).setAkCertificate(genuineDoc.getAkCertificate()).build();

        assertRejected(borrowed, Reason.UNTRUSTED_AK, "certifies another key");
    }

    @Test
    @DisplayName("a forged AK certificate for the genuine AK, from a CA of the same name, is refused: new bytes are checked in full")
    void forgedAkCertificateIsACacheMiss() throws Exception {
        X509Certificate ek = x509(genuineDoc.getEkCertificate());
        X509Certificate ak = x509(genuineDoc.getAkCertificate());
        X509Certificate forged = new TestPki(CA_NAME).issueAk(ak.getPublicKey(), genuine.akName(), ek);
        AttestationDocument doc = genuine.attest(PURPOSE, NONCE, USER_DATA).toBuilder()
                .setAkCertificate(ByteString.copyFrom(forged.getEncoded())).build();

        assertRejected(doc, Reason.UNTRUSTED_AK, "does not chain to a configured EK CA");
    }

    @Test
    @DisplayName("a chain refused once is refused again in full: a failed verification leaves nothing to hit")
    void failedVerificationIsNotRemembered() {
        SoftwareTpmAttester foreign = new SoftwareTpmAttester(trustedCa,
                SoftwareTpmOptions.defaults().with(Mutation.FOREIGN_CA));
        AttestationDocument doc = foreign.attest(PURPOSE, NONCE, USER_DATA);

        assertRejected(doc, Reason.UNTRUSTED_AK, "does not chain to a configured EK CA");
        assertRejected(doc, Reason.UNTRUSTED_AK, "does not chain to a configured EK CA");
    }

    @Test
    @DisplayName("the genuine node's cached chain does not carry a broken AK binding: refused every time")
    void cachedChainStillChecksTheBinding() {
        SoftwareTpmAttester broken = new SoftwareTpmAttester(trustedCa,
                SoftwareTpmOptions.defaults().with(Mutation.BROKEN_BINDING));
        AttestationDocument doc = broken.attest(PURPOSE, NONCE, USER_DATA);

        assertRejected(doc, Reason.UNTRUSTED_AK, "binding");
        assertRejected(doc, Reason.UNTRUSTED_AK, "binding");
    }

    @Test
    @DisplayName("a cache hit still checks the quote: a stale nonce under the genuine cached chain is refused")
    void cacheHitStillChecksFreshness() {
        byte[] stale = genuine.attest(PURPOSE, "an earlier nonce".getBytes(StandardCharsets.UTF_8), USER_DATA).toByteArray();

        AttestationRejected e = assertThrows(AttestationRejected.class, () -> verifier.verify(stale, PURPOSE, NONCE, USER_DATA));
        assertEquals(Reason.NONCE_MISMATCH, e.reason());
    }

    private void assertRejected(AttestationDocument doc, Reason reason, String fragment) {
        AttestationRejected e = assertThrows(AttestationRejected.class,
                () -> verifier.verify(doc.toByteArray(), PURPOSE, NONCE, USER_DATA));
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    private static X509Certificate x509(ByteString der) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der.toByteArray()));
    }
}
