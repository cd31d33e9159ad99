package dev.sextant.joinapi.kubeletca;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Optional;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Loads the cluster CA from PEM files (kubeadm's /etc/kubernetes/pki/ca.{crt,key} or k3s's
 * client-ca): EC or RSA keys, SEC1/PKCS#1 or PKCS#8. Fails the start when they are unusable, so a
 * misconfigured service never answers with half tickets.
 */
@Factory
public class ClusterCaLoader {

    @Singleton
    ClusterCa clusterCa(@Value("${sextant.join.ca.cert-file}") Path certFile,
                        @Value("${sextant.join.ca.key-file}") Path keyFile,
                        @Value("${sextant.join.ca.server-ca-file:}") Optional<String> serverCaFile) {
        try {
            Path serverPath = serverCaFile.filter(s -> !s.isBlank()).map(Path::of).orElse(certFile);
            byte[] serverBytes = Files.readAllBytes(serverPath);
            return new ClusterCa(certificate(Files.readAllBytes(certFile)), privateKey(Files.readString(keyFile)),
                    certificate(serverBytes), serverBytes);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the cluster CA from " + certFile + ": " + e.getMessage(), e);
        }
    }

    public static X509Certificate certificate(byte[] pem) throws GeneralSecurityException {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
    }

    public static PrivateKey privateKey(String pem) throws IOException {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object o = parser.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair pair) {
                return converter.getPrivateKey(pair.getPrivateKeyInfo());
            }
            if (o instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            throw new IOException("no unencrypted private key in the PEM text");
        }
    }

    static String pem(String type, byte[] der) {
        String body = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }
}
