package dev.sextant.nodeboot.kubernetes;

/**
 * Starts Kubernetes on this node. k3s implements it now; a kubeadm driver can implement the same
 * two calls later.
 */
public interface KubernetesDriver {
    /** Starts the first control-plane node of a new cluster; a started result carries the admin kubeconfig. */
    DriverResult initCluster(ClusterSettings settings) throws InterruptedException;

    /** Joins an existing cluster as a control-plane node or a worker. */
    DriverResult joinCluster(JoinSettings settings) throws InterruptedException;
}
