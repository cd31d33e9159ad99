package dev.sextant.nodeboot.bringup;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.housekeeping.volumes.DataVolumeMounter;
import dev.sextant.housekeeping.discovery.DiscoveryResume;
import dev.sextant.nodeboot.deploy.DeployedServices;
import dev.sextant.nodeboot.deploy.EtcdStanding;
import dev.sextant.nodeboot.deploy.KubernetesDatastore;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.kubernetes.RestartSettings;
import dev.sextant.nodeboot.nodelock.FirstBootstrap;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.LockResult;
import dev.sextant.nodeboot.nodelock.NodeLock;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The one way a node becomes (or becomes again) a cluster member, whatever produced its
 * {@link Membership}: the node lock and PCR 15, the state disk (re-keyed on a first membership,
 * already opened at boot otherwise: {@link MemberDisk}), the control plane's data volume (its etcd
 * member's data: {@link EtcdDataVolume}), the cluster's etcd member where Kubernetes keeps its state in it, Kubernetes, the cluster services
 * ({@link ServicesStep}), discovery. Everything after the lock that fails is fatal and goes to the
 * {@link FailureHandler} (which resets the disk only if this boot formatted it).
 */
@Singleton
public final class BringUp {
    private static final Logger LOG = LoggerFactory.getLogger(BringUp.class);
    private static final byte[] DATA_VOLUME_LABEL = "sextant/data-volume/v1".getBytes(StandardCharsets.US_ASCII);
    private static final int GROUP_KEY_BYTES = 32;

    private final NodeLock lock;
    private final MemberDisk disk;
    private final EtcdDataVolume dataVolume;
    private final KubernetesDriver kubernetes;
    private final ServicesStep services;
    private final DiscoveryResume discovery;
    private final ControlPlaneSelfRenewal selfRenewal;
    private final FailureHandler failure;

    public BringUp(NodeLock lock, MemberDisk disk, EtcdDataVolume dataVolume, KubernetesDriver kubernetes,
                   ServicesStep services, DiscoveryResume discovery, ControlPlaneSelfRenewal selfRenewal,
                   FailureHandler failure) {
        this.lock = lock;
        this.disk = disk;
        this.dataVolume = dataVolume;
        this.kubernetes = kubernetes;
        this.services = services;
        this.discovery = discovery;
        this.selfRenewal = selfRenewal;
        this.failure = failure;
    }

    /** {@code progress} receives (step, detail) pairs as the node gets through them. */
    public BringUpOutcome run(Membership membership, BiConsumer<String, String> progress) throws InterruptedException {
        LockResult locked;
        try {
            // A first membership has the TPM remember its state disk before PCR 15 is marked (rememberdisk).
            locked = lock.tryLockOnce(holder(membership.via()), membership.clusterId(), membership.via().firstMembership()
                    ? new FirstBootstrap(membership.clusterId(), membership.diskKey(), membership.controlPlane(),
                            membership.joinServiceRoleKey()) : null);
        } catch (IOException e) {
            return fatal(membership, "marking the TPM with the cluster ID: " + e.getMessage());
        }
        if (locked instanceof LockResult.AlreadyLocked already) {
            return new BringUpOutcome.LockLost(already.by());
        }
        try {
            return afterLock(membership, progress);
        } catch (StepFailed e) {
            return fatal(membership, e.getMessage());
        } catch (RuntimeException e) {
            // A bug is as fatal as any other failure past the point of no return.
            return fatal(membership, "unexpected " + e);
        }
    }

    private BringUpOutcome afterLock(Membership m, BiConsumer<String, String> progress)
            throws StepFailed, InterruptedException {
        progress.accept("lock", "node locked; PCR 15 marked with the cluster ID");
        NodeState state;
        Optional<String> firstDisk = Optional.empty();
        if (m.onDisk().isPresent()) {
            state = m.onDisk().get();
            progress.accept("state-disk", "opened at boot; member since " + state.since());
        } else {
            // Without Kubernetes the services deployed at init run as units of this node; a joining control plane's always do.
            boolean nodeLocalServices = m.services() instanceof ServicesPlan.JoinControlPlane
                    || (m.services() instanceof ServicesPlan.Deploy && !kubernetes.installed());
            MemberDisk.FirstState first = disk.first(m, nodeLocalServices, progress);
            state = first.state();
            firstDisk = first.diskUuid();
        }
        Map<String, String> volumeKeys = new LinkedHashMap<>(state.dataVolumeKeys());
        if (m.controlPlane()) {
            mountDataVolume(m, volumeKeys).ifPresent(mounted -> progress.accept("data-volume", mounted));
            if (!volumeKeys.equals(state.dataVolumeKeys())) {
                state = disk.save(state.withDataVolumeKeys(volumeKeys));
            }
        }
        if (m.onDisk().isPresent()) {
            // Before the services: a control plane's etcd finds its peers by discovery's names (etcd-<node>.internal...)
            // and reports ready only with a quorum, so after the whole cluster was down nobody's names would resolve.
            startDiscovery(m);
        }
        Optional<KubernetesDatastore> datastore = services.beforeKubernetes(m, kubernetes.installed());
        datastore.ifPresent(etcd -> progress.accept("etcd", etcd.summary()));
        DriverResult started = startKubernetes(m, datastore);
        progress.accept("kubernetes", started.describe());
        if (started instanceof DriverResult.Failed failed) {
            throw new StepFailed(failed.message());
        }
        byte[] kubeconfig = started instanceof DriverResult.Started s ? s.kubeconfig() : new byte[0];
        Optional<DeployedServices> deployed = services.run(m, started, kubeconfig, firstDisk, volumeKeys);
        deployed.ifPresent(done -> progress.accept("cluster-services", done.summary()));
        if (m.onDisk().isEmpty()) {
            startDiscovery(m);
        }
        LOG.info("Bring-up via {} done: {} since {}", m.via().label(), m.role(), state.since());
        return new BringUpOutcome.Bootstrapped(m.role(), started, m.via(), state.since(), kubeconfig,
                deployed.map(DeployedServices::etcd).or(() -> datastore.map(KubernetesDatastore::standing))
                        .orElse(EtcdStanding.NONE));
    }

    /**
     * Discovery, with the member certificate a control plane renewed itself after a rejoin or recovery
     * ({@link ControlPlaneSelfRenewal}): its certificate may have ended while the cluster was down, and
     * receivers drop records under an ended one.
     */
    private void startDiscovery(Membership m) {
        // A membership without a group key (a development node without a state disk) leaves discovery off.
        if (m.discoveryKey().length == GROUP_KEY_BYTES) {
            discovery.start(m.discoveryKey(), m.nodeName(), m.controlPlane(), selfRenewal.credentialsFor(m));
        }
    }

    private Optional<String> mountDataVolume(Membership m, Map<String, String> remembered) throws StepFailed, InterruptedException {
        // A volume this node opened before keeps its key on the state disk; a new one gets the membership's key.
        DataVolumeMounter.VolumeKeys fresh = m.newVolumeKeys().orElse(uuid -> derivedVolumeKey(m.diskKey(), uuid));
        return dataVolume.mount(new RememberedVolumeKeys(remembered, fresh));
    }

    /**
     * The key of a data volume on a node that holds no master secret: bound to its own state disk's
     * key, so the node alone can derive it again at every boot.
     */
    public static byte[] derivedVolumeKey(byte[] stateDiskKey, String luksUuid) {
        return new KeyDerivation(stateDiskKey, DATA_VOLUME_LABEL).dataKey(luksUuid, KeyDerivation.KEY_BYTES);
    }

    private DriverResult startKubernetes(Membership m, Optional<KubernetesDatastore> datastore) throws InterruptedException {
        KubernetesPlan plan = m.kubernetes();
        if (plan instanceof KubernetesPlan.Init init) {
            return kubernetes.initCluster(datastore.map(d -> init.cluster().withDatastore(d.etcd())).orElse(init.cluster()));
        }
        if (plan instanceof KubernetesPlan.Join join) {
            return kubernetes.joinCluster(join.join());
        }
        if (plan instanceof KubernetesPlan.Restart restart) {
            NodeState.KubernetesRole previous = restart.previous();
            if (NodeState.KubernetesRole.NONE.equals(previous.mode())) {
                return new DriverResult.NotInstalled("the cluster runs without Kubernetes");
            }
            return kubernetes.restart(new RestartSettings(m.nodeName(),
                    NodeState.KubernetesRole.FIRST_SERVER.equals(previous.mode()), m.controlPlane(),
                    previous.serverUrl(), previous.token()));
        }
        return new DriverResult.NotInstalled("the membership carries no Kubernetes plan");
    }

    private static LockHolder holder(Via via) {
        return switch (via) {
            case INIT -> LockHolder.INIT;
            case JOIN -> LockHolder.JOIN;
            case REJOIN -> LockHolder.REJOIN;
            case RECOVERY -> LockHolder.RECOVERY;
        };
    }

    private BringUpOutcome fatal(Membership m, String reason) {
        failure.fatal(m.via().label() + ": " + reason);
        return new BringUpOutcome.Failed(reason);
    }
}
