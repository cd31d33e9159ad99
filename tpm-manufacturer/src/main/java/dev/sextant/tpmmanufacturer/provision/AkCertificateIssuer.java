package dev.sextant.tpmmanufacturer.provision;

import dev.sextant.attestation.AkBinding;
import dev.sextant.attestation.digest.Sha256;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;

/**
 * Issues the AK certificate of the shared design: subject CN=sextant-ak, the AK's key, ten
 * years, signed by the EK's CA, with the non-critical "AK binding" extension
 * SEQUENCE { OCTET STRING akName, OCTET STRING SHA-256(EK certificate SubjectPublicKeyInfo DER) }.
 */
public final class AkCertificateIssuer {
    private static final Duration VALIDITY = Duration.ofDays(3653);

    private final X509Certificate caCertificate;
    private final PrivateKey caKey;
    private final SecureRandom random = new SecureRandom();

    public AkCertificateIssuer(X509Certificate caCertificate, PrivateKey caKey) {
        this.caCertificate = caCertificate;
        this.caKey = caKey;
    }

    public X509Certificate issue(PublicKey akKey, byte[] akName, X509Certificate ekCertificate)
            throws GeneralSecurityException {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // Backdated a little so a verifier whose clock lags ours still accepts it right away.
        Instant notBefore = now.minus(Duration.ofMinutes(5));
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                caCertificate, new BigInteger(127, random).add(BigInteger.ONE),
                Date.from(notBefore), Date.from(notBefore.plus(VALIDITY)),
                new X500Name("CN=sextant-ak"), akKey);
        try {
            builder.addExtension(AkBinding.OID, false, binding(akName, ekCertificate));
            X509CertificateHolder holder = builder.build(
                    new JcaContentSignerBuilder(signatureAlgorithm(caKey)).build(caKey));
            return new JcaX509CertificateConverter().getCertificate(holder);
        } catch (IOException | OperatorCreationException e) {
            throw new GeneralSecurityException("building the AK certificate: " + e.getMessage(), e);
        }
    }

    /** The AK binding extension value, over the EK SPKI exactly as encoded in its certificate. */
    private static byte[] binding(byte[] akName, X509Certificate ekCertificate) throws GeneralSecurityException {
        try {
            // The SPKI exactly as encoded in the certificate, not as the JCA key re-encodes it.
            byte[] spki = new X509CertificateHolder(ekCertificate.getEncoded()).getSubjectPublicKeyInfo().getEncoded("DER");
            byte[] ekSpkiHash = Sha256.of(spki);
            return new AkBinding(akName, ekSpkiHash).encode();
        } catch (IOException e) {
            throw new GeneralSecurityException("encoding the AK binding: " + e.getMessage(), e);
        }
    }

    private static String signatureAlgorithm(PrivateKey key) {
        return switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC", "ECDSA" -> "SHA256withECDSA";
            default -> throw new IllegalArgumentException("unsupported CA key algorithm " + key.getAlgorithm());
        };
    }
}
