package dev.sextant.nodeboot.bringup;

import dev.sextant.clusterservices.InitNodeBinding;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.nodeboot.clusterservices.ClusterServicesException;
import dev.sextant.nodeboot.clusterservices.KubernetesServices;
import dev.sextant.nodeboot.clusterservices.NodeLocalServices;
import dev.sextant.nodeboot.clusterservices.ServicesInput;
import dev.sextant.nodeboot.datavolume.DataVolumeMounter;
import dev.sextant.nodeboot.datavolume.DataVolumes;
import dev.sextant.nodeboot.diskcrypt.DiskCryptException;
import dev.sextant.nodeboot.diskcrypt.StateDisk;
import dev.sextant.nodeboot.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.endpointdiscovery.DiscoveryResume;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.kubernetes.RestartSettings;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.LockResult;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.nodeboot.tpm.AkName;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The one way a node becomes (or becomes again) a cluster member, whatever produced its
 * {@link Membership}: the node lock and PCR 15, the state disk (re-keyed on a first membership,
 * already opened at boot otherwise), the node state on that disk, the control plane's data
 * volume, Kubernetes, the cluster services, discovery. Everything after the lock that fails is
 * fatal and goes to the {@link FailureHandler} (which resets the disk only if this boot formatted it).
 */
@Singleton
public final class BringUp {
    private static final Logger LOG = LoggerFactory.getLogger(BringUp.class);
    private static final byte[] DATA_VOLUME_LABEL = "sextant/data-volume/v1".getBytes(StandardCharsets.US_ASCII);
    private static final int GROUP_KEY_BYTES = 32;

    private final NodeLock lock;
    private final StateDisk disk;
    private final StateDiskSettings diskSettings;
    private final NodeStateFile stateFile;
    private final DataVolumes dataVolumes;
    private final KubernetesDriver kubernetes;
    private final NodeLocalServices nodeLocalServices;
    private final KubernetesServices kubernetesServices;
    private final DiscoveryResume discovery;
    private final FailureHandler failure;
    private final AkName akName;
    private final Clock clock;

    public BringUp(NodeLock lock, StateDisk disk, StateDiskSettings diskSettings, NodeStateFile stateFile,
                   DataVolumes dataVolumes, KubernetesDriver kubernetes, NodeLocalServices nodeLocalServices,
                   KubernetesServices kubernetesServices, DiscoveryResume discovery, FailureHandler failure, AkName akName) {
        this(lock, disk, diskSettings, stateFile, dataVolumes, kubernetes, nodeLocalServices, kubernetesServices, discovery,
                failure, akName, Clock.systemUTC());
    }

    BringUp(NodeLock lock, StateDisk disk, StateDiskSettings diskSettings, NodeStateFile stateFile, DataVolumes dataVolumes,
            KubernetesDriver kubernetes, NodeLocalServices nodeLocalServices, KubernetesServices kubernetesServices,
            DiscoveryResume discovery, FailureHandler failure, AkName akName, Clock clock) {
        this.lock = lock;
        this.disk = disk;
        this.diskSettings = diskSettings;
        this.stateFile = stateFile;
        this.dataVolumes = dataVolumes;
        this.kubernetes = kubernetes;
        this.nodeLocalServices = nodeLocalServices;
        this.kubernetesServices = kubernetesServices;
        this.discovery = discovery;
        this.failure = failure;
        this.akName = akName;
        this.clock = clock;
    }

    /** A step past the lock that failed; always fatal. */
    private static final class StepFailed extends Exception {
        StepFailed(String message) {
            super(message);
        }
    }

    /** {@code progress} receives (step, detail) pairs as the node gets through them. */
    public BringUpOutcome run(Membership membership, BiConsumer<String, String> progress) throws InterruptedException {
        LockResult locked;
        try {
            locked = lock.tryLockOnce(holder(membership.via()), membership.clusterId());
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
        String diskUuid = null;
        if (m.via().firstMembership()) {
            String[] uuid = new String[1];
            state = firstState(m, progress, uuid);
            diskUuid = uuid[0];
        } else {
            state = m.onDisk();
            progress.accept("state-disk", "opened at boot; member since " + state.since());
        }
        Map<String, String> volumeKeys = new LinkedHashMap<>(state.dataVolumeKeys());
        if (m.controlPlane()) {
            var mounted = mountDataVolume(m, volumeKeys);
            if (mounted != null) {
                progress.accept("data-volume", mounted);
            }
            if (!volumeKeys.equals(state.dataVolumeKeys())) {
                state = save(state.withDataVolumeKeys(volumeKeys));
            }
        }
        DriverResult started = startKubernetes(m);
        progress.accept("kubernetes", started.describe());
        if (started instanceof DriverResult.Failed failed) {
            throw new StepFailed(failed.message());
        }
        byte[] kubeconfig = started instanceof DriverResult.Started s ? s.kubeconfig() : new byte[0];
        String services = services(m, started, kubeconfig, diskUuid, volumeKeys);
        if (services != null) {
            progress.accept("cluster-services", services);
        }
        // A membership without a group key (a development node without a state disk) leaves discovery off.
        if (m.discoveryKey().length == GROUP_KEY_BYTES) {
            discovery.start(m.discoveryKey(), m.nodeName(), m.controlPlane(), m.member());
        }
        LOG.info("Bring-up via {} done: {} since {}", m.via().label(), m.role(), state.since());
        return new BringUpOutcome.Bootstrapped(m.role(), started, m.via(), state.since(), kubeconfig);
    }

    /**
     * A first membership: swap the boot passphrase for the cluster key, open the disk, write the
     * node state, and only then mark the disk initialized: a node that stops before the state is
     * on the disk formats afresh at its next boot instead of opening a disk it cannot read back.
     */
    private NodeState firstState(Membership m, BiConsumer<String, String> progress, String[] uuidOut)
            throws StepFailed, InterruptedException {
        String since = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
        // Without Kubernetes the services deployed at init run as units of this node: recorded now,
        // so a reboot at any later point starts them again.
        boolean nodeLocalServices = m.services() instanceof ServicesPlan.Deploy && !kubernetes.installed();
        NodeState state = new NodeState(m.role().label(), m.nodeName(), HexFormat.of().formatHex(m.clusterId()), since,
                Base64.getEncoder().encodeToString(m.discoveryKey()), kubernetesRole(m), nodeLocalServices, Map.of(),
                NodeState.Member.of(m.member()));
        if (!Files.exists(diskSettings.device())) {
            progress.accept("state-disk", "no state disk at " + diskSettings.device() + "; skipped (development node)");
            return save(state);
        }
        try {
            byte[] bootPassphrase = disk.bootPassphrase();
            String uuid = disk.uuid();
            uuidOut[0] = uuid;
            disk.changeKey(bootPassphrase, m.diskKey());
            String opened = disk.openAndMount(m.diskKey());
            save(state);
            disk.markInitialized();
            progress.accept("state-disk", "LUKS2 disk " + uuid + " re-keyed with the cluster key; " + opened);
            return state;
        } catch (DiskCryptException e) {
            throw new StepFailed("preparing the state disk: " + e.getMessage());
        }
    }

    private String mountDataVolume(Membership m, Map<String, String> remembered) throws StepFailed, InterruptedException {
        // A volume this node opened before keeps its key on the state disk; a new one gets the membership's key.
        DataVolumeMounter.VolumeKeys keys = uuid -> {
            String known = remembered.get(uuid);
            if (known != null) {
                return Base64.getDecoder().decode(known);
            }
            byte[] key = m.newVolumeKeys() != null ? m.newVolumeKeys().keyFor(uuid) : derivedVolumeKey(m.diskKey(), uuid);
            remembered.put(uuid, Base64.getEncoder().encodeToString(key));
            return key;
        };
        return dataVolumes.mount(keys).orElse(null);
    }

    /**
     * The key of a data volume on a node that holds no master secret: bound to its own state disk's
     * key, so the node alone can derive it again at every boot.
     */
    public static byte[] derivedVolumeKey(byte[] stateDiskKey, String luksUuid) {
        return new KeyDerivation(stateDiskKey, DATA_VOLUME_LABEL).dataKey(luksUuid, KeyDerivation.KEY_BYTES);
    }

    private DriverResult startKubernetes(Membership m) throws InterruptedException {
        KubernetesPlan plan = m.kubernetes();
        if (plan instanceof KubernetesPlan.Init init) {
            return kubernetes.initCluster(init.cluster());
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

    private String services(Membership m, DriverResult started, byte[] kubeconfig, String diskUuid,
                            Map<String, String> volumeKeys) throws StepFailed, InterruptedException {
        try {
            if (m.services() instanceof ServicesPlan.Deploy deploy) {
                ServicesInput input = deploy.input().withKubeconfig(kubeconfig)
                        .withInitNode(initNodeBinding(m, diskUuid, volumeKeys));
                return started instanceof DriverResult.Started ? kubernetesServices.deploy(input)
                        : nodeLocalServices.deploy(input);
            }
            if (m.services() instanceof ServicesPlan.RestartNodeLocal) {
                return nodeLocalServices.restart();
            }
            return null;
        } catch (ClusterServicesException e) {
            throw new StepFailed("the cluster services: " + e.getMessage());
        }
    }

    /** The init node's AK, name and disks, bound before its join service serves anyone. */
    private InitNodeBinding initNodeBinding(Membership m, String diskUuid, Map<String, String> volumeKeys) throws StepFailed {
        if (diskUuid == null) {
            LOG.warn("No state disk: the join service starts without the init node's bindings (development node)");
            return null;
        }
        List<String> uuids = new ArrayList<>();
        uuids.add(diskUuid);
        uuids.addAll(volumeKeys.keySet());
        try {
            return new InitNodeBinding(akName.hex(), m.nodeName(), uuids);
        } catch (IOException | IllegalArgumentException e) {
            throw new StepFailed("the init node's bindings: " + e.getMessage());
        }
    }

    private NodeState save(NodeState state) throws StepFailed {
        try {
            stateFile.write(state);
            return state;
        } catch (IOException e) {
            throw new StepFailed("writing the node state to " + stateFile.path() + ": " + e.getMessage());
        }
    }

    private static NodeState.KubernetesRole kubernetesRole(Membership m) {
        if (m.kubernetes() instanceof KubernetesPlan.Init) {
            return new NodeState.KubernetesRole(NodeState.KubernetesRole.FIRST_SERVER, "", "");
        }
        if (m.kubernetes() instanceof KubernetesPlan.Join join) {
            return new NodeState.KubernetesRole(join.join().controlPlane() ? "server" : "agent", join.join().serverUrl(),
                    join.join().token());
        }
        return NodeState.KubernetesRole.none();
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
