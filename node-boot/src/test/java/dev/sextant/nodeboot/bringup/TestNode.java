package dev.sextant.nodeboot.bringup;

import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.nodeboot.deploy.ControlPlaneEtcd;
import dev.sextant.nodeboot.deploy.EtcdProbe;
import dev.sextant.nodeboot.deploy.KmsSocketStandIn;
import dev.sextant.nodeboot.deploy.KubernetesServices;
import dev.sextant.nodeboot.deploy.KubernetesServicesSettings;
import dev.sextant.nodeboot.deploy.NodeLocalServices;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import dev.sextant.housekeeping.volumes.DataVolumeSettings;
import dev.sextant.housekeeping.volumes.DataVolumes;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateDiskSettings;
import dev.sextant.diskcrypt.StateMount;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.failure.FailureSettings;
import dev.sextant.housekeeping.discovery.DiscoveryResume;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.nodeboot.nodelock.PcrMarker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One boot of a node for tests: the real pipeline over a {@link FakeLuks} state disk (which
 * survives {@link #reboot()}), the node state in a directory standing for the state mount,
 * node-local services whose "units" are a listening socket (etcd's a probe that answers at once), and the given PCR marker and
 * Kubernetes driver. A new TestNode over the same directory and disk is the next boot.
 */
public final class TestNode implements AutoCloseable {
    public static final String AK_NAME = "000b" + "ab".repeat(32);

    public final Path dir;
    public final FakeLuks luks;
    public final StateDiskSettings diskSettings;
    public final StateDisk disk;
    public final NodeLock lock;
    /** What the node lock had the TPM remember at a first membership (TpmDiskMemory's part is tested on its own). */
    public final java.util.List<dev.sextant.nodeboot.nodelock.FirstBootstrap> recorded = new java.util.concurrent.CopyOnWriteArrayList<>();
    public final NodeStateFile stateFile;
    public final FailureHandler failure;
    public final KubernetesDriver kubernetes;
    public final BringUp bringUp;
    public final List<List<String>> systemctl = new ArrayList<>();
    /** Where its node-local services' files go (under the state mount), on the default ports. */
    public final NodeLocalSettings nodeLocalSettings;
    private final ServerSocket services;
    private final KmsSocketStandIn kmsSocket;

    public TestNode(Path dir, FakeLuks luks, PcrMarker marker, KubernetesDriver kubernetes) throws IOException {
        this.dir = dir;
        this.luks = luks;
        this.kubernetes = kubernetes;
        Path device = dir.resolve("state-disk.raw");
        if (!Files.exists(device)) {
            Files.createFile(device);
        }
        // Every boot starts with an empty /run: no boot key file, no header copies.
        Path run = Files.createDirectories(dir.resolve("run-" + System.nanoTime()));
        this.diskSettings = new StateDiskSettings(device, run.resolve("luks"), run.resolve("state.key"), 8192, 4);
        StateMount mount = new StateMount("sextant-state", dir.resolve("state"), true);
        this.disk = new StateDisk(diskSettings, mount, luks);
        this.lock = new NodeLock(marker, recorded::add);
        this.stateFile = new NodeStateFile(mount);
        if (!Files.exists(dir.resolve("console"))) {
            Files.createFile(dir.resolve("console"));
        }
        this.failure = new FailureHandler(new FailureSettings("disabled", dir.resolve("console")), disk, () -> { });
        this.services = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        CommandRunner units = (argv, stdin) -> {
            systemctl.add(argv);
            return new CommandRunner.Result(0, "", "");
        };
        // etcd's "unit" answers at once, as a leader of its own (the deployer's real etcd runs in ControlPlaneEtcdTest).
        EtcdProbe etcd = (endpoint, tls, timeout) -> new EndpointStatus(endpoint, 1, 1, 2, 4, 4, false, "3.4.23", List.of());
        this.kmsSocket = new KmsSocketStandIn(run.resolve("sextant/kms/kms.sock"));
        this.nodeLocalSettings = new NodeLocalSettings(dir.resolve("state/sextant/services"),
                kmsSocket.socket(), services.getLocalPort(), "", Duration.ofSeconds(5), 2379, 2380, "", 0, 0, "sextant",
                dir.resolve("hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT);
        var nodeLocal = new NodeLocalServices(nodeLocalSettings, units, etcd);
        var dataVolumes = new DataVolumes(new DataVolumeSettings(false, "", "cp", "", dir, dir, dir, "x", dir,
                Duration.ofMinutes(1), 8192, 4), (argv, stdin) -> { throw new AssertionError("no data volume"); });
        var clusterServices = new ServicesStep(nodeLocal, new KubernetesServices(new KubernetesServicesSettings(
                "sextant/join-service@sha256:" + "a".repeat(64), "sextant/kms@sha256:" + "b".repeat(64), 30090), nodeLocalSettings, units, etcd),
                () -> AK_NAME);
        this.bringUp = new BringUp(lock, new MemberDisk(disk, diskSettings, stateFile),
                new EtcdDataVolume(dataVolumes, ControlPlaneEtcd.dataDir(nodeLocalSettings)), kubernetes, clusterServices,
                DiscoveryResume.disabled(), new ControlPlaneSelfRenewal(nodeLocalSettings), failure);
    }

    /** The console the failure handler writes to ("" when nothing failed). */
    public String console() throws IOException {
        Path console = dir.resolve("console");
        return Files.exists(console) ? Files.readString(console) : "";
    }

    /** The next boot of this node: same disk and state, fresh lock, /run and PCRs (the caller's marker). */
    public TestNode reboot(PcrMarker marker, KubernetesDriver kubernetes) throws IOException {
        close();
        luks.powerCycle();
        return new TestNode(dir, luks, marker, kubernetes);
    }

    @Override
    public void close() throws IOException {
        services.close();
        kmsSocket.close();
    }
}
