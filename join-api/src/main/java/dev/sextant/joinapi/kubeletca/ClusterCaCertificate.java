package dev.sextant.joinapi.kubeletca;

import java.security.cert.X509Certificate;

/**
 * The cluster CA certificate joining nodes pin (k3s: the server CA; kubeadm: ca.crt), and the file's
 * bytes as stored, which k3s's K10 token hashes. A certificate only: the private key is loaded by
 * {@link KubeletSigner}, which exists only for kubeadm.
 */
public record ClusterCaCertificate(X509Certificate certificate, byte[] certificateFile) {
    public ClusterCaCertificate {
        certificateFile = certificateFile.clone();
    }

    @Override
    public byte[] certificateFile() {
        return certificateFile.clone();
    }

    @Override
    public String toString() {
        return "ClusterCaCertificate[" + certificate.getSubjectX500Principal() + "]";
    }
}
