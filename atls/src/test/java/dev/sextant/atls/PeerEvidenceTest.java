package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("The evidence in a peer's aTLS certificate")
class PeerEvidenceTest {
    private static final Variant VARIANT = Variant.QEMU_VTPM;
    private static final byte[] DOCUMENT = {1, 2, 3, 4};

    private final BouncyCastleProvider bc = new BouncyCastleProvider();
    private final Clock now = Clock.fixed(Instant.parse("2026-11-22T03:00:00Z"), ZoneOffset.UTC);
    private final CertificateMinter minter = new CertificateMinter(bc, new SecureRandom(), now);

    @Test
    @DisplayName("is the extension's document, bound to SHA-256 of the certificate's SubjectPublicKeyInfo")
    void documentAndKeyHash() throws Exception {
        KeyPair keys = minter.newKeyPair();
        X509Certificate cert = minter.certify(keys, VARIANT, DOCUMENT).certificate();

        PeerEvidence evidence = PeerEvidence.extract(new X509Certificate[] {cert}, VARIANT, bc, now);

        assertArrayEquals(DOCUMENT, evidence.document());
        assertArrayEquals(Digests.sha256(keys.getPublic().getEncoded()), evidence.spkiHash());
    }

    @Test
    @DisplayName("is missing when the certificate has no attestation extension")
    void noExtension() throws Exception {
        X509Certificate cert = minter.certify(minter.newKeyPair(), VARIANT, null).certificate();

        assertMalformed(new X509Certificate[] {cert}, now);
    }

    @Test
    @DisplayName("is refused from a certificate signed by another key than its own")
    void notSelfSigned() throws Exception {
        KeyPair subject = minter.newKeyPair();
        KeyPair signer = minter.newKeyPair();
        // Carries subject's public key under the same issuer name, but signer's signature.
        X509Certificate crossSigned = minter.certify(new KeyPair(subject.getPublic(), signer.getPrivate()),
                VARIANT, DOCUMENT).certificate();

        assertMalformed(new X509Certificate[] {crossSigned}, now);
    }

    @Test
    @DisplayName("is refused outside the certificate's validity")
    void expired() throws Exception {
        X509Certificate cert = minter.certify(minter.newKeyPair(), VARIANT, DOCUMENT).certificate();

        assertMalformed(new X509Certificate[] {cert}, Clock.offset(now, Duration.ofHours(2)));
    }

    @Test
    @DisplayName("is accepted from the first to the last second of the certificate's validity, and refused just outside")
    void validityBoundaries() throws Exception {
        X509Certificate cert = minter.certify(minter.newKeyPair(), VARIANT, DOCUMENT).certificate();
        X509Certificate[] chain = {cert};
        Instant notBefore = cert.getNotBefore().toInstant();
        Instant notAfter = cert.getNotAfter().toInstant();

        PeerEvidence.extract(chain, VARIANT, bc, Clock.fixed(notBefore, ZoneOffset.UTC));
        PeerEvidence.extract(chain, VARIANT, bc, Clock.fixed(notAfter, ZoneOffset.UTC));
        assertMalformed(chain, Clock.fixed(notBefore.minusMillis(1), ZoneOffset.UTC));
        assertMalformed(chain, Clock.fixed(notAfter.plusMillis(1), ZoneOffset.UTC));
    }

    @Test
    @DisplayName("is refused when the peer sends a chain instead of one certificate")
    void chain() throws Exception {
        X509Certificate cert = minter.certify(minter.newKeyPair(), VARIANT, DOCUMENT).certificate();

        assertMalformed(new X509Certificate[] {cert, cert}, now);
        assertMalformed(new X509Certificate[0], now);
    }

    private void assertMalformed(X509Certificate[] chain, Clock clock) {
        AttestationRejected e = assertThrows(AttestationRejected.class,
                () -> PeerEvidence.extract(chain, VARIANT, bc, clock));
        assertEquals(Reason.MALFORMED, e.reason());
    }
}
