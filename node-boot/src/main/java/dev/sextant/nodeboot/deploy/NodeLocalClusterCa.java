package dev.sextant.nodeboot.deploy;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import dev.sextant.diskcrypt.SecretFiles;

/**
 * The cluster CA a control plane without Kubernetes signs kubelet certificates with: EC P-256,
 * self-signed, the key as PKCS#8 PEM (the form k3s writes and the join service reads).
 */
record NodeLocalClusterCa(Path certificate, Path key) {
    static NodeLocalClusterCa create(Path dir) throws IOException, ClusterServicesException {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = generator.generateKeyPair();
            Instant now = Instant.now();
            X500Name name = new X500Name("CN=sextant-cluster-ca@" + now.getEpochSecond());
            var builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now.toEpochMilli()),
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(3650))), name,
                    pair.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature | KeyUsage.cRLSign));
            var certificate = builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()));
            Path cert = Files.writeString(dir.resolve("ca.crt"), pem(certificate));
            Path key = SecretFiles.write(dir.resolve("ca.key"),
                    pem(new JcaPKCS8Generator(pair.getPrivate(), null)).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new NodeLocalClusterCa(cert, key);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new ClusterServicesException("creating the cluster CA: " + e.getMessage(), e);
        }
    }

    private static String pem(Object o) throws IOException {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
