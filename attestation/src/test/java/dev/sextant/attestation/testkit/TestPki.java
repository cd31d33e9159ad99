package dev.sextant.attestation.testkit;

import dev.sextant.attestation.AkBinding;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.DERUTF8String;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x509.Attribute;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test CA in the role of the EK manufacturer CA (shared design decision "AK trust"): issues EK
 * certificates shaped like swtpm_localca's (critical SAN with TPM manufacturer attributes, EKU
 * tcg-kp-EKCertificate) and AK certificates with the AK binding extension.
 */
public final class TestPki {
    private static final ASN1ObjectIdentifier TCG_EK_CERTIFICATE = new ASN1ObjectIdentifier("2.23.133.8.1");
    private static final ASN1ObjectIdentifier TPM_MANUFACTURER = new ASN1ObjectIdentifier("2.23.133.2.1");
    private static final ASN1ObjectIdentifier TPM_MODEL = new ASN1ObjectIdentifier("2.23.133.2.2");
    private static final ASN1ObjectIdentifier TPM_VERSION = new ASN1ObjectIdentifier("2.23.133.2.3");
    private static final ASN1ObjectIdentifier TPM_SPECIFICATION = new ASN1ObjectIdentifier("2.23.133.2.16");

    private final KeyPair caKeys;
    private final String signatureAlgorithm;
    private final X509Certificate caCertificate;
    private final AtomicLong serial = new AtomicLong(1);

    /** A CA with a P-256 key, signing with ECDSA. */
    public TestPki(String caName) {
        this(caName, "EC");
    }

    /**
     * @param keyAlgorithm {@code "EC"} (P-256, SHA256withECDSA) or {@code "RSA"} (2048 bits, SHA256withRSA,
     *                     as tpm-manufacturer's LocalCa, the EK CA of swtpm nodes)
     */
    public TestPki(String caName, String keyAlgorithm) {
        try {
            caKeys = switch (keyAlgorithm) {
                case "EC" -> generator("EC", 256).generateKeyPair();
                case "RSA" -> generator("RSA", 2048).generateKeyPair();
                default -> throw new IllegalArgumentException("no test CA with " + keyAlgorithm + " keys");
            };
            signatureAlgorithm = keyAlgorithm.equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            X500Name name = new X500Name("CN=" + caName);
            X509v3CertificateBuilder b = builder(name, name, caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            caCertificate = sign(b);
        } catch (Exception e) {
            throw new IllegalStateException("creating test CA " + caName, e);
        }
    }

    public X509Certificate caCertificate() { return caCertificate; }

    public KeyPair caKeys() { return caKeys; }

    /** An EK certificate over {@code ekKey}, with swtpm's extensions (subject directory attributes critical). */
    public X509Certificate issueEk(PublicKey ekKey) {
        try {
            X500Name tpm = new X500NameBuilder().addRDN(TPM_MANUFACTURER, "id:00001014")
                    .addRDN(TPM_MODEL, "swtpm").addRDN(TPM_VERSION, "id:20191023").build();
            Attribute spec = new Attribute(TPM_SPECIFICATION, new DERSet(new DERSequence(
                    new ASN1Encodable[]{new DERUTF8String("2.0")})));
            X509v3CertificateBuilder b = builder(new X500Name(caCertificate.getSubjectX500Principal().getName()),
                    new X500Name(new org.bouncycastle.asn1.x500.RDN[0]), ekKey)
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.getInstance(TCG_EK_CERTIFICATE)))
                    .addExtension(Extension.subjectAlternativeName, true, new GeneralNames(new GeneralName(tpm)))
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.subjectDirectoryAttributes, true, new DERSequence(spec))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyEncipherment));
            return sign(b);
        } catch (Exception e) {
            throw new IllegalStateException("issuing a test EK certificate", e);
        }
    }

    /** An AK certificate (CN=sextant-ak) over {@code akKey} carrying the binding to {@code akName} and the EK. */
    public X509Certificate issueAk(PublicKey akKey, byte[] akName, X509Certificate ekCertificate) {
        try {
            byte[] ekSpkiHash = MessageDigest.getInstance("SHA-256").digest(ekCertificate.getPublicKey().getEncoded());
            return issueAk(akKey, new AkBinding(akName, ekSpkiHash).encode());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An AK certificate with an arbitrary binding extension value (for broken-binding tests). */
    public X509Certificate issueAk(PublicKey akKey, byte[] bindingDer) {
        try {
            X509v3CertificateBuilder b = builder(new X500Name(caCertificate.getSubjectX500Principal().getName()),
                    new X500Name("CN=sextant-ak"), akKey)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(AkBinding.OID, false, bindingDer);
            return sign(b);
        } catch (Exception e) {
            throw new IllegalStateException("issuing a test AK certificate", e);
        }
    }

    static KeyPairGenerator generator(String alg, int bits) throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance(alg);
        g.initialize(bits);
        return g;
    }

    private X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, PublicKey key) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(serial.getAndIncrement()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(3650))), subject, key);
    }

    private X509Certificate sign(X509v3CertificateBuilder b) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder(signatureAlgorithm).build(caKeys.getPrivate())));
    }
}
