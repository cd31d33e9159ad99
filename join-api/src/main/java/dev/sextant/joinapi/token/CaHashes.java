package dev.sextant.joinapi.token;

import dev.sextant.attestation.digest.Sha256;

import java.security.cert.X509Certificate;

/**
 * The two ways a joining node pins the cluster CA before it trusts the API server.
 * kubeadm: {@code sha256:<hex SHA-256 of the CA's SubjectPublicKeyInfo DER>} (pubkeypin).
 * k3s secure token: {@code K10<hex SHA-256 of the CA bundle file as stored on disk>::<credentials>}
 * (docs.k3s.io/cli/token: for k3s's self-signed CA it is the hash of the PEM file contents).
 */
public final class CaHashes {
    private CaHashes() {
    }

    public static String caCertHash(X509Certificate ca) {
        return "sha256:" + Sha256.hex(ca.getPublicKey().getEncoded());
    }

    public static String k3sToken(byte[] caBundleFileContents, BootstrapToken token) {
        return "K10" + Sha256.hex(caBundleFileContents) + "::" + token.value();
    }
}
