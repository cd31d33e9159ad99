package dev.sextant.nodeboot.kubernetes;

/**
 * Starts Kubernetes on this node. k3s implements it now; a kubeadm driver can implement the same
 * calls later.
 */
public interface KubernetesDriver {
    /** Starts the first control-plane node of a new cluster; a started result carries the admin kubeconfig. */
    DriverResult initCluster(ClusterSettings settings) throws InterruptedException;

    /** Joins an existing cluster as a control-plane node or a worker. */
    DriverResult joinCluster(JoinSettings settings) throws InterruptedException;

    /** Starts again, after a reboot, what this node ran before (its datastore is on the state disk). */
    DriverResult restart(RestartSettings settings) throws InterruptedException;

    /** False when this node's image has no Kubernetes: a ticket's plan cannot be applied here. */
    boolean installed();
}
