package dev.sextant.nodeboot.initserver;

import dev.sextant.nodeboot.clusterservices.ClusterServicesException;
import dev.sextant.nodeboot.clusterservices.Deployer;
import dev.sextant.nodeboot.clusterservices.KubernetesServices;
import dev.sextant.nodeboot.clusterservices.NodeLocalServices;
import dev.sextant.nodeboot.clusterservices.ServicesInput;
import dev.sextant.nodeboot.datavolume.DataVolumes;
import dev.sextant.nodeboot.diskcrypt.DiskCryptException;
import dev.sextant.nodeboot.diskcrypt.StateDisk;
import dev.sextant.nodeboot.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.gossip.DiscoveryResume;
import dev.sextant.nodeboot.keys.ClusterKeys;
import dev.sextant.nodeboot.kubernetes.ClusterSettings;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.LockResult;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitSuccess;
import com.google.protobuf.ByteString;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.nio.file.Files;
import java.util.function.BiConsumer;

/**
 * The init path for a request whose secret and fields were already checked: derive the keys, take
 * the node lock, re-key the state disk, start Kubernetes, deploy the cluster services. Everything
 * after the lock that fails is fatal for this boot and goes to the {@link FailureHandler}.
 */
@Singleton
public final class InitFlow {
    private final NodeLock lock;
    private final StateDisk disk;
    private final StateDiskSettings diskSettings;
    private final KubernetesDriver kubernetes;
    private final FailureHandler failure;
    private final NodeIdentity node;
    private final NodeLocalServices nodeLocalServices;
    private final KubernetesServices kubernetesServices;
    private final DiscoveryResume discovery;
    private final DataVolumes dataVolumes;

    /** What init achieved: the answer for the operator and how Kubernetes fared. */
    public record Outcome(InitSuccess success, DriverResult kubernetes) {
    }

    public InitFlow(NodeLock lock, StateDisk disk, StateDiskSettings diskSettings, KubernetesDriver kubernetes,
                    FailureHandler failure, NodeIdentity node, NodeLocalServices nodeLocalServices,
                    KubernetesServices kubernetesServices, DiscoveryResume discovery, DataVolumes dataVolumes) {
        this.lock = lock;
        this.disk = disk;
        this.diskSettings = diskSettings;
        this.kubernetes = kubernetes;
        this.failure = failure;
        this.node = node;
        this.nodeLocalServices = nodeLocalServices;
        this.kubernetesServices = kubernetesServices;
        this.discovery = discovery;
        this.dataVolumes = dataVolumes;
    }

    /** {@code progress} receives (step, detail) pairs as the node gets through them. */
    public Outcome run(InitRequest request, BiConsumer<String, String> progress)
            throws InitFailedException, InterruptedException {
        ClusterKeys keys = keysOf(request);
        byte[] clusterId = ClusterKeys.clusterId(keys.measurementSecret(), request.getMeasurementSalt().toByteArray());
        LockResult locked;
        try {
            locked = lock.tryLockOnce(LockHolder.INIT, clusterId);
        } catch (IOException e) {
            throw fatal("marking the TPM with the cluster ID: " + e.getMessage(), e);
        }
        if (locked instanceof LockResult.AlreadyLocked already) {
            throw new InitFailedException(already.message());
        }
        try {
            return afterLock(request, keys, clusterId, progress);
        } catch (RuntimeException e) {
            // A bug is as fatal as any other failure past the point of no return.
            throw fatal("unexpected " + e, e);
        }
    }

    private Outcome afterLock(InitRequest request, ClusterKeys keys, byte[] clusterId,
                                  BiConsumer<String, String> progress) throws InitFailedException, InterruptedException {
        progress.accept("lock", "node locked; PCR 15 marked with the cluster ID");
        progress.accept("state-disk", prepareDisk(keys));
        dataVolumes.mount(keys::diskKey).ifPresent(mounted -> progress.accept("data-volume", mounted));
        DriverResult started = kubernetes.initCluster(clusterSettings(request));
        progress.accept("kubernetes", started.describe());
        if (started instanceof DriverResult.Failed failed) {
            throw fatal(failed.message(), null);
        }
        byte[] kubeconfig = started instanceof DriverResult.Started s ? s.kubeconfig() : new byte[0];
        progress.accept("cluster-services", deployServices(request, started, kubeconfig));
        discovery.start(keys.discoveryKey(), node.name(), true);
        return new Outcome(InitSuccess.newBuilder().setKubeconfig(ByteString.copyFrom(kubeconfig))
                .setClusterId(ByteString.copyFrom(clusterId)).build(), started);
    }

    private String deployServices(InitRequest request, DriverResult kubernetes, byte[] kubeconfig)
            throws InitFailedException, InterruptedException {
        String apiHost = request.getApiServerCertSansCount() > 0 ? request.getApiServerCertSans(0) : node.name();
        Master master = Master.of(request);
        ServicesInput input = new ServicesInput(master.secret(), master.salt(), request.getMeasurementSalt().toByteArray(),
                request.getJoinMeasurements(), request.getEkCaPem(), apiHost + ":6443", kubeconfig);
        Deployer deployer = kubernetes instanceof DriverResult.Started ? kubernetesServices : nodeLocalServices;
        try {
            return deployer.deploy(input);
        } catch (ClusterServicesException e) {
            throw fatal("deploying the cluster services: " + e.getMessage(), e);
        }
    }

    private record Master(byte[] secret, byte[] salt) {
        static Master of(InitRequest request) {
            if (!request.getKmsUri().isEmpty()) {
                KmsUri uri = KmsUri.parse(request.getKmsUri()).orElseThrow();
                return new Master(uri.masterSecret(), uri.masterSalt());
            }
            return new Master(request.getMasterSecret().toByteArray(), request.getMasterSalt().toByteArray());
        }
    }

    private static ClusterKeys keysOf(InitRequest request) {
        Master master = Master.of(request);
        return new ClusterKeys(master.secret(), master.salt());
    }

    private String prepareDisk(ClusterKeys keys) throws InitFailedException, InterruptedException {
        if (!Files.exists(diskSettings.device())) {
            return "no state disk at " + diskSettings.device() + "; skipped (development node)";
        }
        try {
            byte[] bootPassphrase = disk.bootPassphrase();
            String uuid = disk.uuid();
            byte[] key = keys.diskKey(uuid);
            disk.rekey(bootPassphrase, key);
            return "LUKS2 disk " + uuid + " re-keyed with the cluster-derived key; " + disk.openAndMount(key);
        } catch (DiskCryptException e) {
            throw fatal("preparing the state disk: " + e.getMessage(), e);
        }
    }

    private ClusterSettings clusterSettings(InitRequest r) {
        String name = r.getClusterName().isEmpty() ? "sextant" : r.getClusterName();
        return new ClusterSettings(node.name(), name, r.getKubernetes().getVersion(),
                r.getKubernetes().getServiceCidr(), r.getKubernetes().getPodCidr(), r.getApiServerCertSansList());
    }

    private InitFailedException fatal(String reason, Throwable cause) {
        failure.fatal("init: " + reason);
        return new InitFailedException(reason, cause);
    }
}
