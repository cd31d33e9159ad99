package dev.sextant.nodeboot.kubernetes;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The cluster's own etcd, which Kubernetes keeps its state in instead of a datastore of its own: the client
 * URL of this control plane's member and the client certificate the etcd CA issued for Kubernetes.
 *
 * @param endpoint {@code https://HOST:PORT} of the member
 * @param caFile   the etcd CA certificate (PEM), which the member's certificate chains to
 * @param certFile Kubernetes' client certificate (PEM)
 * @param keyFile  its private key (PKCS#8 PEM, 0600)
 */
public record ExternalEtcd(String endpoint, Path caFile, Path certFile, Path keyFile) {
    public ExternalEtcd {
        if (!Objects.requireNonNull(endpoint, "endpoint").startsWith("https://")) {
            throw new IllegalArgumentException("the etcd endpoint must be an https:// URL (etcd takes mutual TLS only), got '" + endpoint + "'");
        }
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
    }
}
