package dev.sextant.nodeboot.deploy;

import java.util.Objects;

/**
 * What deploying (or starting again) the cluster services achieved.
 *
 * @param summary one line for the operator's progress view
 * @param etcd    what this node is in the cluster's etcd now
 */
public record DeployedServices(String summary, EtcdStanding etcd) {
    public DeployedServices {
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(etcd, "etcd");
    }
}
