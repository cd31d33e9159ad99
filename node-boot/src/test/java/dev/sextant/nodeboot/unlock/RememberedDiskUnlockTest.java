package dev.sextant.nodeboot.unlock;

import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A disk the TPM remembers: its key opens it only if the node state on it names the remembered cluster and role. */
class RememberedDiskUnlockTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLUSTER = "the remembered cluster".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;
    private TestNode node;

    @AfterEach
    void close() throws Exception {
        node.close();
    }

    /** A member's disk keyed with {@link #KEY}, its node state naming {@code clusterId} and {@code role}; then a reboot. */
    private void diskWith(byte[] clusterId, BootstrapStatus.Role role) throws Exception {
        var kubernetes = new FakeKubernetes(new DriverResult.Started(new byte[0]));
        node = new TestNode(dir, new FakeLuks(), id -> { }, kubernetes);
        node.disk.prepareFresh();
        node.disk.changeKey(node.disk.bootPassphrase(), KEY);
        node.disk.openAndMount(KEY);
        node.stateFile.write(new NodeState(role.label(), "node-0", HexFormat.of().formatHex(clusterId), "2026-01-01T00:00:00Z",
                Base64.getEncoder().encodeToString(new byte[32]), NodeState.KubernetesRole.none(), false, Map.of(), null));
        node.disk.markInitialized();
        node = node.reboot(id -> { }, kubernetes);
    }

    private DiskUnlocker waiting(boolean controlPlane) throws Exception {
        DiskUnlocker unlocker = new DiskUnlocker(node.disk, node.stateFile);
        unlocker.startWaiting(FakeLuks.UUID, RememberedDisk.of(FakeLuks.UUID, CLUSTER, KEY, controlPlane, new byte[32]));
        return unlocker;
    }

    @Test
    @DisplayName("the remembered key opens the remembered disk whose state names the remembered cluster and role")
    void matchingStateOpens() throws Exception {
        diskWith(CLUSTER, BootstrapStatus.Role.WORKER);
        DiskUnlocker unlocker = waiting(false);
        unlocker.open(FakeLuks.UUID, KEY, Via.REJOIN);
        Membership m = unlocker.unlocked().get();
        assertArrayEquals(CLUSTER, m.clusterId());
        assertEquals(BootstrapStatus.Role.WORKER, m.role());
    }

    @Test
    @DisplayName("node state naming another cluster than the TPM remembers: refused, and nothing acts on it (the unlock fails)")
    void otherClusterRefused() throws Exception {
        diskWith("another cluster".getBytes(StandardCharsets.US_ASCII), BootstrapStatus.Role.WORKER);
        DiskUnlocker unlocker = waiting(false);
        UnlockRefused e = assertThrows(UnlockRefused.class, () -> unlocker.open(FakeLuks.UUID, KEY, Via.REJOIN));
        assertEquals(UnlockRefused.Kind.BROKEN, e.kind());
        ExecutionException failed = assertThrows(ExecutionException.class, () -> unlocker.unlocked().get());
        assertTrue(failed.getCause().getMessage().contains("another cluster"), failed.getCause().getMessage());
    }

    @Test
    @DisplayName("node state naming a control plane where the TPM remembers a worker: refused, and nothing acts on it")
    void otherRoleRefused() throws Exception {
        diskWith(CLUSTER, BootstrapStatus.Role.CONTROL_PLANE);
        DiskUnlocker unlocker = waiting(false);
        UnlockRefused e = assertThrows(UnlockRefused.class, () -> unlocker.open(FakeLuks.UUID, KEY, Via.RECOVERY));
        assertEquals(UnlockRefused.Kind.BROKEN, e.kind());
        ExecutionException failed = assertThrows(ExecutionException.class, () -> unlocker.unlocked().get());
        assertTrue(failed.getCause().getMessage().contains("control-plane"), failed.getCause().getMessage());
    }
}
