package dev.sextant.nodeboot.deploy;

/**
 * Brings up the cluster's own services (KMS, join service) on the first control-plane node at
 * init: as Kubernetes workloads when Kubernetes runs ({@link KubernetesServices}), as services of
 * the node itself when it does not ({@link NodeLocalServices}: an image without k3s still admits
 * attested workers).
 */
public interface Deployer {
    /** Deploys them; returns one line for the operator's progress view and what this node is in etcd. */
    DeployedServices deploy(ServicesInput input) throws ClusterServicesException, InterruptedException;
}
