package dev.sextant.nodeboot.initserver;

import com.google.protobuf.ByteString;
import dev.sextant.nodeboot.clusterservices.KubernetesServices;
import dev.sextant.nodeboot.datavolume.DataVolumeSettings;
import dev.sextant.nodeboot.datavolume.DataVolumes;
import dev.sextant.nodeboot.gossip.DiscoveryResume;
import dev.sextant.nodeboot.clusterservices.KubernetesSettings;
import dev.sextant.nodeboot.clusterservices.NodeLocalServices;
import dev.sextant.nodeboot.clusterservices.NodeLocalSettings;
import dev.sextant.nodeboot.diskcrypt.CommandRunner;
import dev.sextant.nodeboot.diskcrypt.ProcessCommandRunner;
import dev.sextant.nodeboot.diskcrypt.StateDisk;
import dev.sextant.nodeboot.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.failure.FailureSettings;
import dev.sextant.nodeboot.kubernetes.ClusterSettings;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.proto.v1.InitRequest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InitFlowTest {
    @TempDir
    Path dir;

    private final AtomicInteger diskResets = new AtomicInteger();
    private ServerSocket listening;

    @BeforeEach
    void listen() throws Exception {
        listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void close() throws Exception {
        listening.close();
    }

    private InitFlow flow(NodeLock lock, DriverResult kubernetesAnswer) throws Exception {
        KubernetesDriver driver = new KubernetesDriver() {
            @Override
            public DriverResult initCluster(ClusterSettings settings) {
                return kubernetesAnswer;
            }

            @Override
            public DriverResult joinCluster(JoinSettings settings) {
                throw new AssertionError("init never joins");
            }
        };
        var diskSettings = new StateDiskSettings(dir.resolve("no-disk"), dir.resolve("luks"), dir.resolve("key"), 8192, 4);
        var failure = new FailureHandler(new FailureSettings("disabled", Files.createFile(dir.resolve("console"))),
                diskResets::incrementAndGet, () -> { });
        // Ready at once: the stand-in "services" listen on the port of this test's own server socket.
        var services = new NodeLocalServices(new NodeLocalSettings(dir.resolve("services"), listening.getLocalPort(),
                listening.getLocalPort(), "", Duration.ofSeconds(5)), (argv, stdin) -> new CommandRunner.Result(0, "", ""));
        return new InitFlow(lock, new StateDisk(diskSettings, new ProcessCommandRunner()), diskSettings, driver, failure,
                new NodeIdentity(new InitSettings(dir.resolve("hash"), dir.resolve("log"), false, "node-a", null)), services,
                new KubernetesServices(new KubernetesSettings("sextant/join-service:test", "sextant/kms:test", 30090)),
                DiscoveryResume.disabled(), new DataVolumes(new DataVolumeSettings(false, "", "cp", "", dir, dir, dir, "x", dir,
                        Duration.ofMinutes(1), 8192, 4), (argv, stdin) -> { throw new AssertionError("no data volume"); }));
    }

    private static InitRequest request() {
        return InitRequest.newBuilder().setMasterSecret(ByteString.copyFrom(new byte[32]))
                .setMasterSalt(ByteString.copyFrom(new byte[32])).setMeasurementSalt(ByteString.copyFrom(new byte[32])).build();
    }

    @Test
    @DisplayName("Kubernetes failing after the lock is fatal: the disk is marked for reset and the console says why")
    void failureAfterLockGoesToFailureHandler() throws Exception {
        NodeLock lock = new NodeLock(id -> { });
        List<String> steps = new ArrayList<>();
        var e = assertThrows(InitFailedException.class, () -> flow(lock, new DriverResult.Failed("k3s exited with 1"))
                .run(request(), (step, detail) -> steps.add(step)));
        assertEquals("k3s exited with 1", e.getMessage());
        assertEquals(1, diskResets.get());
        assertTrue(Files.readString(dir.resolve("console")).contains("init: k3s exited with 1"));
        assertEquals(List.of("lock", "state-disk", "kubernetes"), steps);
    }

    @Test
    @DisplayName("losing the lock to join is not fatal: nothing is reset, the caller is told who holds the node")
    void lostLockIsNotFatal() throws Exception {
        NodeLock lock = new NodeLock(id -> { });
        lock.tryLockOnce(LockHolder.JOIN, new byte[32]);
        var e = assertThrows(InitFailedException.class,
                () -> flow(lock, new DriverResult.Started(new byte[0])).run(request(), (step, detail) -> { }));
        assertEquals("node is already locked by join", e.getMessage());
        assertEquals(0, diskResets.get());
    }

    @Test
    @DisplayName("an image without k3s still initializes: the cluster services run on the node, the success carries the cluster ID and an empty kubeconfig")
    void notInstalledIsSuccess() throws Exception {
        List<String> steps = new ArrayList<>();
        var outcome = flow(new NodeLock(id -> { }), new DriverResult.NotInstalled("/usr/local/bin/k3s is missing"))
                .run(request(), (step, detail) -> steps.add(step));
        assertEquals(32, outcome.success().getClusterId().size());
        assertTrue(outcome.success().getKubeconfig().isEmpty());
        assertEquals(List.of("lock", "state-disk", "kubernetes", "cluster-services"), steps);
        assertTrue(Files.exists(dir.resolve("services/kms.properties")));
    }
}
