package dev.sextant.attestation.verify;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.proto.v1.AttestationDocument;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cache of accepted EK/AK chains behind {@link EkCaTrust}: bounded, fed only by successes, time-aware. */
@DisplayName("The cache of accepted EK/AK chains")
class VerifiedAkChainsTest {
    private static TestPki ca;
    private static List<SoftwareTpmAttester> nodes;

    @BeforeAll
    static void nodes() {
        ca = new TestPki("sextant-test-ek-ca-chains");
        nodes = List.of(node(), node(), node());
    }

    private static SoftwareTpmAttester node() {
        return new SoftwareTpmAttester(ca, SoftwareTpmOptions.defaults());
    }

    @Test
    @DisplayName("holds at most its capacity, however many nodes are verified")
    void bounded() throws Exception {
        VerifiedAkChains chains = new VerifiedAkChains(2);
        EkCaTrust trust = new EkCaTrust(List.of(ca.caCertificate()), chains, Clock.systemUTC());
        for (SoftwareTpmAttester node : nodes) {
            check(trust, node);
        }
        assertEquals(2, chains.size());
    }

    @Test
    @DisplayName("remembers nothing from a document whose certificates chain but certify another key")
    void failureIsNotRemembered() throws Exception {
        VerifiedAkChains chains = new VerifiedAkChains(8);
        EkCaTrust trust = new EkCaTrust(List.of(ca.caCertificate()), chains, Clock.systemUTC());
        AttestationDocument doc = attest(nodes.get(0));
        PublicKey otherAk = akCertificate(attest(nodes.get(1))).getPublicKey();

        AttestationRejected e = assertThrows(AttestationRejected.class,
                () -> trust.check(doc, otherAk, nodes.get(0).akName()));
        assertEquals(Reason.UNTRUSTED_AK, e.reason());
        assertEquals(0, chains.size());
    }

    @Test
    @DisplayName("does not serve an entry after its certificates expire: the full check refuses them")
    void expiredEntryIsNotUsed() throws Exception {
        VerifiedAkChains chains = new VerifiedAkChains(8);
        AttestationDocument doc = attest(nodes.get(0));
        X509Certificate ak = akCertificate(doc);
        EkCaTrust now = new EkCaTrust(List.of(ca.caCertificate()), chains, Clock.systemUTC());
        now.remember(now.check(doc, ak.getPublicKey(), nodes.get(0).akName()));
        assertEquals(1, chains.size());

        Instant later = ak.getNotAfter().toInstant().plus(Duration.ofDays(1));
        EkCaTrust afterExpiry = new EkCaTrust(List.of(ca.caCertificate()), chains, Clock.fixed(later, ZoneOffset.UTC));
        AttestationRejected e = assertThrows(AttestationRejected.class,
                () -> afterExpiry.check(doc, ak.getPublicKey(), nodes.get(0).akName()));
        assertEquals(Reason.UNTRUSTED_AK, e.reason());
        assertTrue(e.getMessage().contains("does not chain"), e.getMessage());
        assertEquals(0, chains.size());
    }

    private static void check(EkCaTrust trust, SoftwareTpmAttester node) throws Exception {
        AttestationDocument doc = attest(node);
        trust.remember(trust.check(doc, akCertificate(doc).getPublicKey(), node.akName()));
    }

    private static AttestationDocument attest(SoftwareTpmAttester node) {
        return node.attest(Purpose.ATLS_SERVER, "nonce".getBytes(StandardCharsets.UTF_8), new byte[32]);
    }

    private static X509Certificate akCertificate(AttestationDocument doc) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(doc.getAkCertificate().toByteArray()));
    }
}
