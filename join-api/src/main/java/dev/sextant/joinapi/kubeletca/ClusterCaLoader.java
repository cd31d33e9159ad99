package dev.sextant.joinapi.kubeletca;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.annotation.Factory;
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
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Loads the cluster CA certificate from a PEM file (k3s: the service account's ca.crt, which is
 * k3s's server CA; kubeadm: /etc/kubernetes/pki/ca.crt), and reads CA private keys for
 * {@link KubeletSigner}: EC or RSA, SEC1/PKCS#1 or PKCS#8. Fails the start when they are
 * unusable, so a misconfigured service never answers with half tickets.
 */
@Factory
public class ClusterCaLoader {

    @Singleton
    ClusterCaCertificate clusterCa(JoinServiceConfig config) {
        Path certFile = config.ca().certFile();
        try {
            byte[] bytes = Files.readAllBytes(certFile);
            return new ClusterCaCertificate(certificate(bytes), bytes);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the cluster CA certificate from " + certFile + ": " + e.getMessage(), e);
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
