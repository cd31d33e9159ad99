package dev.sextant.nodeboot.deploy;

import dev.sextant.clusterservices.InitNodeBinding;
import dev.sextant.proto.v1.SignedMeasurements;

/**
 * What the services need from the init request: the KMS's master secret and salt, the measurement
 * salt, and what joining nodes must prove (signed measurements, EK CA bundle), plus the API server
 * endpoint tickets name and, when Kubernetes runs, the admin kubeconfig to deploy with. The init
 * node's own bindings (its AK, name and disk UUIDs) are known only once its disks are ready, and
 * reach the join service before it serves. Holds secrets: no toString with content.
 *
 * @param initNode      the init node's bindings; null on a development node without a state disk
 * @param nodeName      this node's name: its etcd member's name
 * @param controlPlanes the most control planes the cluster admits: the init request's, its 0 already made the default (3)
 */
public record ServicesInput(byte[] masterSecret, byte[] masterSalt, byte[] measurementSalt,
                            SignedMeasurements joinMeasurements, String ekCaPem, String apiServerEndpoint,
                            byte[] kubeconfig, InitNodeBinding initNode, String nodeName, int controlPlanes) {

    public ServicesInput withKubeconfig(byte[] newKubeconfig) {
        return new ServicesInput(masterSecret, masterSalt, measurementSalt, joinMeasurements, ekCaPem, apiServerEndpoint,
                newKubeconfig, initNode, nodeName, controlPlanes);
    }

    public ServicesInput withInitNode(InitNodeBinding binding) {
        return new ServicesInput(masterSecret, masterSalt, measurementSalt, joinMeasurements, ekCaPem, apiServerEndpoint,
                kubeconfig, binding, nodeName, controlPlanes);
    }

    @Override
    public String toString() {
        return "ServicesInput[apiServerEndpoint=" + apiServerEndpoint + ", nodeName=" + nodeName + ", controlPlanes=" + controlPlanes
                + ", secrets redacted]";
    }
}
