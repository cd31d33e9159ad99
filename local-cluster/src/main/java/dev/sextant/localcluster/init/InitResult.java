package dev.sextant.localcluster.init;

import java.util.HexFormat;
import java.util.Optional;

/**
 * What a node answers when init succeeded: the cluster ID it derived (what its PCR 15 is marked
 * with), and the admin kubeconfig when it runs Kubernetes, as the node wrote it (its API server
 * named 127.0.0.1, from the node's view), and its state disk's UUID (empty from a node older than that field).
 */
public record InitResult(byte[] clusterId, Optional<String> kubeconfig, String stateDiskUuid) {
    public String clusterIdHex() {
        return HexFormat.of().formatHex(clusterId);
    }
}
