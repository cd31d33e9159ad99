package dev.sextant.nodeboot.deploy;

import dev.sextant.nodeboot.kubernetes.ExternalEtcd;
import java.util.Objects;

/**
 * This control plane's etcd member, serving before Kubernetes starts, and what Kubernetes reaches it with.
 *
 * @param etcd     the member's client URL on loopback and Kubernetes' client certificate
 * @param standing what the member is in the cluster's etcd
 */
public record KubernetesDatastore(ExternalEtcd etcd, EtcdStanding standing) {
    public KubernetesDatastore {
        Objects.requireNonNull(etcd, "etcd");
        Objects.requireNonNull(standing, "standing");
    }

    /** One line for the operator's progress view. */
    public String summary() {
        return "etcd " + standing.label() + " at " + etcd.endpoint() + " (" + ControlPlaneEtcd.UNIT + "), Kubernetes' datastore";
    }
}
