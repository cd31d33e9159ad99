package dev.sextant.nodeboot.bringup;

import dev.sextant.clusterservices.InitNodeBinding;
import dev.sextant.nodeboot.deploy.ClusterServicesException;
import dev.sextant.nodeboot.deploy.DeployedServices;
import dev.sextant.nodeboot.deploy.KubernetesDatastore;
import dev.sextant.nodeboot.deploy.KubernetesServices;
import dev.sextant.nodeboot.deploy.NodeLocalServices;
import dev.sextant.nodeboot.deploy.ServicesInput;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.nodetpm.AkName;
import dev.sextant.nodeboot.verify.VerifyEndpointReport;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a bring-up does with the cluster's own services (KMS, join service, and the cluster's etcd member):
 * start the member before Kubernetes, which keeps its state there, on a control plane where Kubernetes
 * runs; deploy them at init, as Kubernetes workloads when Kubernetes started and as
 * units of this node otherwise, with the init node's bindings claimed before the join service serves
 * anyone; start them as units of a control plane that joins without Kubernetes; start the node's units
 * again after a reboot; or nothing.
 */
@Singleton
public final class ServicesStep {
    private static final Logger LOG = LoggerFactory.getLogger(ServicesStep.class);

    private final NodeLocalServices nodeLocal;
    private final KubernetesServices kubernetes;
    private final AkName akName;
    private final String verifyEndpoint;

    /** Without a VerifyService endpoint for the init node (tests of the rest). */
    public ServicesStep(NodeLocalServices nodeLocal, KubernetesServices kubernetes, AkName akName) {
        this(nodeLocal, kubernetes, akName, "");
    }

    /**
     * @param verifyEndpoint where this node's VerifyService answers ({@link VerifyEndpointReport}): the init
     *                       node's join service records it, so re-attestation asks the init node (and renews
     *                       its hour-long member certificate) from the start, not only after its first rejoin
     */
    @Inject
    public ServicesStep(NodeLocalServices nodeLocal, KubernetesServices kubernetes, AkName akName,
                        VerifyEndpointReport verifyEndpoint) {
        this(nodeLocal, kubernetes, akName, verifyEndpoint.endpoint());
    }

    private ServicesStep(NodeLocalServices nodeLocal, KubernetesServices kubernetes, AkName akName, String verifyEndpoint) {
        this.nodeLocal = nodeLocal;
        this.kubernetes = kubernetes;
        this.akName = akName;
        this.verifyEndpoint = verifyEndpoint;
    }

    /**
     * Before Kubernetes starts on a control plane where it runs: this node's etcd member, which Kubernetes
     * keeps its state in (at init, and again after a reboot of the first server); empty otherwise. A control
     * plane whose services are units of the node starts its member with them ({@link #run}).
     */
    Optional<KubernetesDatastore> beforeKubernetes(Membership m, boolean kubernetesInstalled)
            throws StepFailed, InterruptedException {
        if (!kubernetesInstalled) {
            return Optional.empty();
        }
        try {
            if (m.services() instanceof ServicesPlan.Deploy deploy) {
                return Optional.of(kubernetes.startEtcd(deploy.input()));
            }
            if (m.services() instanceof ServicesPlan.None && m.kubernetes() instanceof KubernetesPlan.Restart restart
                    && NodeState.KubernetesRole.FIRST_SERVER.equals(restart.previous().mode())) {
                return kubernetes.restartEtcd();
            }
            return Optional.empty();
        } catch (ClusterServicesException e) {
            throw new StepFailed("the cluster's etcd for Kubernetes: " + e.getMessage());
        }
    }

    /**
     * What was done, for the progress line and the status line; empty when the membership asks for nothing.
     *
     * @param diskUuid   this boot's first-membership state disk; empty otherwise, and on a node without one
     * @param volumeKeys the data volumes this node holds keys for
     */
    Optional<DeployedServices> run(Membership m, DriverResult started, byte[] kubeconfig, Optional<String> diskUuid,
                         Map<String, String> volumeKeys) throws StepFailed, InterruptedException {
        try {
            if (m.services() instanceof ServicesPlan.Deploy deploy) {
                ServicesInput input = deploy.input().withKubeconfig(kubeconfig)
                        .withInitNode(initNodeBinding(m, diskUuid, volumeKeys));
                return Optional.of(started instanceof DriverResult.Started ? kubernetes.deploy(input) : nodeLocal.deploy(input));
            }
            if (m.services() instanceof ServicesPlan.JoinControlPlane join) {
                return Optional.of(nodeLocal.joinControlPlane(join.input()));
            }
            if (m.services() instanceof ServicesPlan.RestartNodeLocal) {
                return Optional.of(nodeLocal.restart());
            }
            return Optional.empty();
        } catch (ClusterServicesException e) {
            throw new StepFailed("the cluster services: " + e.getMessage());
        }
    }

    /** The init node's AK, name and disks, bound before its join service serves anyone. */
    private InitNodeBinding initNodeBinding(Membership m, Optional<String> diskUuid, Map<String, String> volumeKeys)
            throws StepFailed {
        if (diskUuid.isEmpty()) {
            LOG.warn("No state disk: the join service starts without the init node's bindings (development node)");
            return null;
        }
        List<String> uuids = new ArrayList<>();
        uuids.add(diskUuid.get());
        uuids.addAll(volumeKeys.keySet());
        try {
            return new InitNodeBinding(akName.hex(), m.nodeName(), uuids, verifyEndpoint);
        } catch (IOException | IllegalArgumentException e) {
            throw new StepFailed("the init node's bindings: " + e.getMessage());
        }
    }
}
