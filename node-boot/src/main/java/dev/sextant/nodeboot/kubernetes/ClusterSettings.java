package dev.sextant.nodeboot.kubernetes;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The typed inputs of a new cluster.
 *
 * @param nodeName       RFC 1123 node name
 * @param clusterName    the operator's cluster name (used for the kubeconfig's context)
 * @param version        requested Kubernetes version, empty for the installed one
 * @param serviceCidr    empty for the driver's default
 * @param podCidr        empty for the driver's default
 * @param apiServerSans  extra API server certificate SANs
 * @param datastore      the cluster's etcd Kubernetes keeps its state in; empty: the driver's own datastore
 */
public record ClusterSettings(String nodeName, String clusterName, String version, String serviceCidr,
                              String podCidr, List<String> apiServerSans, Optional<ExternalEtcd> datastore) {
    public ClusterSettings {
        apiServerSans = List.copyOf(apiServerSans);
        Objects.requireNonNull(datastore, "datastore");
    }

    public ClusterSettings(String nodeName, String clusterName, String version, String serviceCidr, String podCidr,
                           List<String> apiServerSans) {
        this(nodeName, clusterName, version, serviceCidr, podCidr, apiServerSans, Optional.empty());
    }

    /** The same cluster keeping its state in {@code etcd}. */
    public ClusterSettings withDatastore(ExternalEtcd etcd) {
        return new ClusterSettings(nodeName, clusterName, version, serviceCidr, podCidr, apiServerSans, Optional.of(etcd));
    }
}
