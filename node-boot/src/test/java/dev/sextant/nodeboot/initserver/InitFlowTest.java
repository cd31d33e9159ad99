package dev.sextant.nodeboot.initserver;

import com.google.protobuf.ByteString;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.proto.v1.InitRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InitFlowTest {
    @TempDir
    Path dir;

    private TestNode node;

    @AfterEach
    void close() throws Exception {
        node.close();
    }

    private InitFlow flow(DriverResult kubernetesAnswer) throws Exception {
        node = new TestNode(dir, new FakeLuks(), id -> { }, new FakeKubernetes(kubernetesAnswer));
        return new InitFlow(node.bringUp, node.disk,
                new NodeIdentity(new InitSettings(dir.resolve("hash"), dir.resolve("log"), false, "node-a", null)));
    }

    private static InitRequest request() {
        return InitRequest.newBuilder().setMasterSecret(ByteString.copyFrom(new byte[32]))
                .setMasterSalt(ByteString.copyFrom(new byte[32])).setMeasurementSalt(ByteString.copyFrom(new byte[32])).build();
    }

    @Test
    @DisplayName("Kubernetes failing after the lock is fatal: the disk this boot formatted is marked for reset and the console says why")
    void failureAfterLockGoesToFailureHandler() throws Exception {
        List<String> steps = new ArrayList<>();
        InitFlow flow = flow(new DriverResult.Failed("k3s exited with 1"));
        var e = assertThrows(InitFailedException.class, () -> flow.run(request(), (step, detail) -> steps.add(step)));
        assertEquals("k3s exited with 1", e.getMessage());
        assertFalse(node.luks.initialized(), "marked for reset: the next boot formats afresh");
        assertTrue(node.console().contains("init: k3s exited with 1"));
        assertEquals(List.of("lock", "state-disk", "etcd", "kubernetes"), steps, "the cluster's etcd serves before Kubernetes starts");
    }

    @Test
    @DisplayName("losing the lock to join is not fatal: nothing is reset, the caller is told who holds the node")
    void lostLockIsNotFatal() throws Exception {
        InitFlow flow = flow(new DriverResult.Started(new byte[0]));
        node.lock.tryLockOnce(LockHolder.JOIN, new byte[32], new dev.sextant.nodeboot.nodelock.FirstBootstrap(new byte[32], new byte[32], false));
        var e = assertThrows(InitFailedException.class, () -> flow.run(request(), (step, detail) -> { }));
        assertEquals("node is already locked by join", e.getMessage());
        assertEquals("", node.console());
        assertFalse(node.luks.commands().contains("luksChangeKey"), "the disk was not re-keyed");
    }

    @Test
    @DisplayName("an image without k3s still initializes: the disk carries the cluster key and the node state (with the init node's self-certified discovery member key), the services run on the node")
    void notInstalledIsSuccess() throws Exception {
        List<String> steps = new ArrayList<>();
        var outcome = flow(new DriverResult.NotInstalled("/usr/local/bin/k3s is missing"))
                .run(request(), (step, detail) -> steps.add(step));
        assertEquals(32, outcome.success().getClusterId().size());
        assertTrue(outcome.success().getKubeconfig().isEmpty());
        assertEquals(List.of("lock", "state-disk", "kubernetes", "cluster-services"), steps);
        assertTrue(Files.exists(dir.resolve("state/sextant/services/kms.properties")), "the KMS's files are on the state disk");
        assertTrue(node.luks.initialized());
        assertTrue(node.luks.opensWith(new ClusterKeys(new byte[32], new byte[32]).diskKey(FakeLuks.UUID)),
                "slot 0 holds the key the KMS derives for this UUID");
        org.junit.jupiter.api.Assertions.assertArrayEquals(dev.sextant.keys.role.JoinServiceRoleKey.of(new byte[32], new byte[32])
                .publicKey(), node.recorded.get(0).joinServiceRoleKey().orElseThrow(),
                "the TPM records the role key the init node derives from the master secret, which its rejoins demand");
        NodeState state = node.stateFile.read();
        assertEquals("control-plane", state.role());
        assertEquals("node-a", state.nodeName());
        assertTrue(state.nodeLocalServices());
        assertEquals(outcome.bootstrapped().since(), state.since());
        // The init node certified itself with the CA the join service derives from the same master secret.
        byte[] caSeed = new dev.sextant.keys.KeyDerivation(new byte[32], new byte[32])
                .dataKey(dev.sextant.keys.KeyDerivation.DISCOVERY_CA, 32);
        var member = state.member().credentials();
        assertTrue(java.util.Arrays.equals(new dev.sextant.keys.member.DiscoveryCa(caSeed).publicKey(), member.caPublicKey()));
        var certificate = member.check(java.time.Instant.now());
        assertEquals("node-a", certificate.nodeName());
        assertEquals(dev.sextant.keys.member.MemberRole.CONTROL_PLANE, certificate.role());
        assertTrue(certificate.sameCluster(outcome.success().getClusterId().toByteArray()));
    }
}
