package dev.sextant.nodeboot.bringup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.clusterservices.KubeApiDouble;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.nodeboot.deploy.DeployInputs;
import dev.sextant.nodeboot.deploy.EtcdStanding;
import dev.sextant.nodeboot.initserver.ClusterKeys;
import dev.sextant.nodeboot.initserver.InitFlow;
import dev.sextant.nodeboot.initserver.InitSettings;
import dev.sextant.nodeboot.initserver.NodeIdentity;
import dev.sextant.nodeboot.kubernetes.ClusterSettings;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.ExternalEtcd;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.kubernetes.RestartSettings;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.proto.v1.InitRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("A control plane where Kubernetes runs: the cluster's etcd member serves before Kubernetes starts")
class KubernetesModeBringUpTest {
    private static final List<String> START_ETCD = List.of("systemctl", "start", "sextant-etcd.service");

    @TempDir
    Path dir;

    private final KubeApiDouble api = new KubeApiDouble();
    private final AtomicReference<TestNode> node = new AtomicReference<>();
    /** What Kubernetes was started with, and the node's systemctl commands at that moment. */
    private final List<Object> kubernetesCalls = new ArrayList<>();
    private final List<List<List<String>>> systemctlAtKubernetes = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        node.get().close();
        api.close();
    }

    /** Kubernetes that starts at once, handing over a kubeconfig of the API double, and notes what ran before it. */
    private KubernetesDriver kubernetes() throws Exception {
        DriverResult started = new DriverResult.Started(Files.readAllBytes(api.kubeconfig(dir)));
        return new KubernetesDriver() {
            private DriverResult record(Object call) {
                kubernetesCalls.add(call);
                systemctlAtKubernetes.add(List.copyOf(node.get().systemctl));
                return started;
            }

            @Override
            public DriverResult initCluster(ClusterSettings settings) {
                return record(settings);
            }

            @Override
            public DriverResult joinCluster(JoinSettings settings) {
                return record(settings);
            }

            @Override
            public DriverResult restart(RestartSettings settings) {
                return record(settings);
            }

            @Override
            public boolean installed() {
                return true;
            }
        };
    }

    private BringUpOutcome.Bootstrapped init(List<String> steps) throws Exception {
        node.set(new TestNode(dir, new FakeLuks(), id -> { }, kubernetes()));
        InitFlow flow = new InitFlow(node.get().bringUp, node.get().disk,
                new NodeIdentity(new InitSettings(dir.resolve("hash"), dir.resolve("log"), false, "control-plane-0", null)));
        InitRequest request = InitRequest.newBuilder().setMasterSecret(ByteString.copyFrom(new byte[32]))
                .setMasterSalt(ByteString.copyFrom(new byte[32])).setMeasurementSalt(ByteString.copyFrom(new byte[32]))
                .setJoinMeasurements(DeployInputs.signed(dir, DeployInputs.MEASUREMENTS)).setEkCaPem(DeployInputs.EK_CA).build();
        return flow.run(request, (step, detail) -> steps.add(step)).bootstrapped();
    }

    @Test
    @DisplayName("init: sextant-etcd.service starts and answers before k3s, which is given the member on loopback and its own client certificate on the state disk; the KMS and join service come as pods")
    void initStartsEtcdBeforeKubernetes() throws Exception {
        List<String> steps = new ArrayList<>();
        BringUpOutcome.Bootstrapped outcome = init(steps);

        assertEquals(List.of("lock", "state-disk", "etcd", "kubernetes", "cluster-services"), steps);
        assertEquals(List.of(List.of(START_ETCD)), systemctlAtKubernetes, "etcd's unit had started when Kubernetes was started");
        assertEquals(List.of(START_ETCD), node.get().systemctl, "no KMS or join service unit: they run as pods");
        ExternalEtcd datastore = assertInstanceOf(ClusterSettings.class, kubernetesCalls.get(0)).datastore().orElseThrow();
        assertEquals("https://127.0.0.1:2379", datastore.endpoint());
        assertEquals(node.get().nodeLocalSettings.dir().resolve("etcd/pki/k3s/k3s.crt"), datastore.certFile());
        assertEquals(EtcdStanding.MEMBER, outcome.etcd(), "the status line says etcd=member");
    }

    @Test
    @DisplayName("after a reboot the first server's member starts again, with certificates issued afresh, before k3s restarts over it")
    void restartStartsEtcdBeforeKubernetes() throws Exception {
        init(new ArrayList<>());
        kubernetesCalls.clear();
        systemctlAtKubernetes.clear();

        node.set(node.get().reboot(id -> { }, kubernetes()));
        byte[] diskKey = new ClusterKeys(new byte[32], new byte[32]).diskKey(FakeLuks.UUID);
        DiskUnlocker unlocker = new DiskUnlocker(node.get().disk, node.get().stateFile);
        unlocker.startWaiting(FakeLuks.UUID);
        Membership recovered = Membership.recovery(unlocker.open(FakeLuks.UUID, diskKey, Via.RECOVERY), diskKey);
        var outcome = (BringUpOutcome.Bootstrapped) node.get().bringUp.run(recovered, (step, detail) -> { });

        RestartSettings restart = assertInstanceOf(RestartSettings.class, kubernetesCalls.get(0));
        assertTrue(restart.firstServer());
        assertEquals(List.of(List.of(START_ETCD)), systemctlAtKubernetes, "etcd's unit had started when k3s restarted");
        assertEquals(List.of(START_ETCD), node.get().systemctl);
        assertEquals(EtcdStanding.MEMBER, outcome.etcd());
    }
}
