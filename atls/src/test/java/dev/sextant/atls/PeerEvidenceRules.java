package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The evidence in a peer's aTLS certificate: the rules, whichever {@link Ecdsa} checks the
 * certificate's self-signature ({@link PeerEvidenceTest}: BouncyCastle, {@link PeerEvidenceNativeTest}:
 * the join service's native code).
 */
abstract class PeerEvidenceRules {
    private static final Variant VARIANT = Variant.QEMU_VTPM;
    private static final byte[] DOCUMENT = {1, 2, 3, 4};
    /** Signs the hand-made certificates, on curves the JDK no longer has too. */
    private static final Provider BC = new BouncyCastleProvider();

    private final Ecdsa ecdsa;
    private final Clock now = Clock.fixed(Instant.parse("2026-11-22T03:00:00Z"), ZoneOffset.UTC);
    private final CertificateMinter minter;

    PeerEvidenceRules(Ecdsa ecdsa) {
        this.ecdsa = ecdsa;
        this.minter = new CertificateMinter(ecdsa, new SecureRandom(), now);
    }

    @Test
    @DisplayName("is the extension's document, bound to SHA-256 of the certificate's SubjectPublicKeyInfo")
    void documentAndKeyHash() throws Exception {
        KeyPair keys = minter.newKeyPair();
        X509Certificate cert = minter.certify(keys, VARIANT, DOCUMENT).certificate();

        PeerEvidence evidence = PeerEvidence.extract(new X509Certificate[] {cert}, VARIANT, now, ecdsa);

        assertArrayEquals(DOCUMENT, evidence.document());
        assertArrayEquals(Sha256.of(keys.getPublic().getEncoded()), evidence.spkiHash());
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
    @DisplayName("is refused from an ECDSA-signed certificate whose key is not an EC key")
    void ecdsaSignatureOverAnotherKeyType() throws Exception {
        KeyPair rsa = rsaKeys();
        KeyPair ec = minter.newKeyPair();

        assertMalformed(new X509Certificate[] {selfSigned(rsa.getPublic(), ec, "SHA256withECDSA")}, now);
    }

    @Test
    @DisplayName("is refused from a certificate whose key is on another curve than P-256, P-384, P-521 (secp256k1, which AWS-LC accepts)")
    void otherCurve() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", BC);
        generator.initialize(new ECGenParameterSpec("secp256k1"));
        KeyPair k1 = generator.generateKeyPair();

        assertMalformed(new X509Certificate[] {selfSigned(k1.getPublic(), k1, "SHA256withECDSA")}, now);
    }

    @Test
    @DisplayName("signed with another algorithm than ECDSA is checked all the same: accepted self-signed, refused signed by another key")
    void otherSignatureAlgorithm() throws Exception {
        KeyPair rsa = rsaKeys();
        X509Certificate own = selfSigned(rsa.getPublic(), rsa, "SHA256withRSA");

        PeerEvidence evidence = PeerEvidence.extract(new X509Certificate[] {own}, VARIANT, now, ecdsa);

        assertArrayEquals(Sha256.of(rsa.getPublic().getEncoded()), evidence.spkiHash());
        assertMalformed(new X509Certificate[] {selfSigned(rsa.getPublic(), rsaKeys(), "SHA256withRSA")}, now);
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

        PeerEvidence.extract(chain, VARIANT, Clock.fixed(notBefore, ZoneOffset.UTC), ecdsa);
        PeerEvidence.extract(chain, VARIANT, Clock.fixed(notAfter, ZoneOffset.UTC), ecdsa);
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
                () -> PeerEvidence.extract(chain, VARIANT, clock, ecdsa));
        assertEquals(Reason.MALFORMED, e.reason());
    }

    private static KeyPair rsaKeys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    /** A certificate carrying {@code subjectKey} and the document, issuer = subject, signed by {@code signer}. */
    private X509Certificate selfSigned(java.security.PublicKey subjectKey, KeyPair signer, String algorithm) throws Exception {
        X500Name name = new X500Name("CN=sextant-atls");
        Instant at = now.instant();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, BigInteger.TEN,
                Date.from(at.minusSeconds(60)), Date.from(at.plusSeconds(60)), name, subjectKey);
        builder.addExtension(VARIANT.oid(), false, DOCUMENT);
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder(algorithm).setProvider(BC).build(signer.getPrivate())));
    }
}
