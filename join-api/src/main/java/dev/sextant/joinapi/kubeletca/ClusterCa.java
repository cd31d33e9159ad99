package dev.sextant.joinapi.kubeletca;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * The cluster CA that signs kubelet client certificates, and the server CA nodes pin (the same CA on
 * kubeadm; k3s keeps a separate server CA, whose bundle file bytes feed the K10 token hash).
 */
public record ClusterCa(X509Certificate certificate, PrivateKey key, X509Certificate serverCa, byte[] serverCaFile) {
    public ClusterCa {
        serverCaFile = serverCaFile.clone();
    }

    @Override
    public byte[] serverCaFile() {
        return serverCaFile.clone();
    }

    @Override
    public String toString() {
        return "ClusterCa[" + certificate.getSubjectX500Principal() + "]";
    }
}
