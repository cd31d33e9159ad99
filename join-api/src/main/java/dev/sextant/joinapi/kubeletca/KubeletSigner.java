package dev.sextant.joinapi.kubeletca;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;

/**
 * Signs a validated kubelet CSR with the cluster CA: subject and key from the CSR, random 128-bit
 * serial, valid from 5 minutes ago (clock skew between nodes) for one year, a client-only leaf
 * (digitalSignature|keyEncipherment, clientAuth, CA=false). Output is PEM, as kubelet reads it.
 */
@Singleton
public class KubeletSigner {
    private static final Duration BACKDATE = Duration.ofMinutes(5);
    private static final Duration VALIDITY = Duration.ofDays(365);
    private static final java.security.Provider BC = new org.bouncycastle.jce.provider.BouncyCastleProvider();

    private final ClusterCaCertificate ca;
    private final PrivateKey caKey;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    /** Loads the CA key; only kubeadm's plan asks for this bean, so k3s never reads a CA key. */
    @Inject
    public KubeletSigner(ClusterCaCertificate ca, JoinServiceConfig config, Clock clock) {
        this(ca, config.ca().keyFile(), clock);
    }

    public KubeletSigner(ClusterCaCertificate ca, Path keyFile, Clock clock) {
        this.ca = ca;
        this.clock = clock;
        try {
            this.caKey = ClusterCaLoader.privateKey(Files.readString(keyFile));
        } catch (IOException e) {
            throw new IllegalStateException("cannot load the cluster CA key from " + keyFile + ": " + e.getMessage(), e);
        }
    }

    public String sign(PKCS10CertificationRequest csr) throws Refusal {
        Instant now = clock.instant();
        try {
            X509v3CertificateBuilder builder = new X509v3CertificateBuilder(
                    X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded()),
                    serial(), Date.from(now.minus(BACKDATE)), Date.from(now.plus(VALIDITY)),
                    csr.getSubject(), csr.getSubjectPublicKeyInfo());
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            builder.addExtension(Extension.authorityKeyIdentifier, false, utils.createAuthorityKeyIdentifier(ca.certificate()));
            builder.addExtension(Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(csr.getSubjectPublicKeyInfo()));
            Extension san = csr.getRequestedExtensions() == null ? null
                    : csr.getRequestedExtensions().getExtension(Extension.subjectAlternativeName);
            if (san != null) {
                // Already restricted by CsrCheck to the node's own name and IP addresses.
                builder.addExtension(Extension.subjectAlternativeName, false, san.getParsedValue());
            }
            // BouncyCastle's P-256 is several times faster than SunEC's; not registered globally.
            ContentSigner signer = new JcaContentSignerBuilder(algorithm()).setProvider(BC).build(caKey);
            return ClusterCaLoader.pem("CERTIFICATE", builder.build(signer).getEncoded());
        } catch (Exception e) {
            throw new Refusal(JoinRefusal.INTERNAL, "signing the kubelet certificate failed", e);
        }
    }

    private String algorithm() {
        return caKey.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    }

    private BigInteger serial() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        bytes[0] &= 0x7f;
        bytes[0] |= 0x01; // positive and never zero (RFC 5280 §4.1.2.2)
        return new BigInteger(bytes);
    }
}
