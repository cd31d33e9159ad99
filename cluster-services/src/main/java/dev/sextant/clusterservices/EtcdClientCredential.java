package dev.sextant.clusterservices;

import java.util.Objects;

/**
 * How the join service in its pod reaches the cluster's etcd: the port of the member on the node it runs on,
 * and the client certificate the etcd CA issued for the join service (PEM; the key PKCS#8). Holds a private
 * key: no toString with content.
 *
 * @param memberPort     the member's client port on every control plane (TLS, client certificates of the etcd CA only)
 * @param caPem          the etcd CA certificate the member's certificate chains to
 * @param certificatePem the join service's client certificate
 * @param keyPem         its private key
 */
public record EtcdClientCredential(int memberPort, String caPem, String certificatePem, byte[] keyPem) {
    public EtcdClientCredential {
        if (memberPort < 1 || memberPort > 65535) {
            throw new IllegalArgumentException("etcd's client port " + memberPort + " is not a port");
        }
        if (Objects.requireNonNull(caPem, "caPem").isBlank() || Objects.requireNonNull(certificatePem, "certificatePem").isBlank()
                || Objects.requireNonNull(keyPem, "keyPem").length == 0) {
            throw new IllegalArgumentException("the join service's etcd client certificate, its key or its CA is empty");
        }
    }

    @Override
    public String toString() {
        return "EtcdClientCredential[memberPort=" + memberPort + ", key=<redacted>]";
    }
}
