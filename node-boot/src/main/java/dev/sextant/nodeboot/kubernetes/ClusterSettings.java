package dev.sextant.nodeboot.kubernetes;

import java.util.List;

/**
 * The typed inputs of a new cluster.
 *
 * @param nodeName       RFC 1123 node name
 * @param clusterName    the operator's cluster name (used for the kubeconfig's context)
 * @param version        requested Kubernetes version, empty for the installed one
 * @param serviceCidr    empty for the driver's default
 * @param podCidr        empty for the driver's default
 * @param apiServerSans  extra API server certificate SANs
 */
public record ClusterSettings(String nodeName, String clusterName, String version, String serviceCidr,
                              String podCidr, List<String> apiServerSans) {
    public ClusterSettings {
        apiServerSans = List.copyOf(apiServerSans);
    }
}
