package dev.sextant.localcluster.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.qemu.ProcessRef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What reboot and start check before they power anything on; the boots themselves are e2e's MiniClusterTest. */
@DisplayName("mini reboot and mini start")
class RebootAndStartTest {
    private static final OperatorCommand NO_RECOVERY = (args, out) -> {
        throw new AssertionError("recover must not run");
    };
    private static final String UUID = "5f1c0e2a-0000-4000-8000-000000000001";

    @TempDir
    Path dir;
    private final List<String> progress = new ArrayList<>();

    private MiniLayout cluster(String phase, ProcessRef process) throws Exception {
        MiniLayout layout = new MiniLayout(dir);
        new MiniState(MiniState.VERSION, phase, "t", "i", "ab".repeat(32), List.of(
                new MiniState.Node("control-plane-0", NodeRole.CONTROL_PLANE, Map.of(7443, 40000), "c", process, process),
                new MiniState.Node("worker-0", NodeRole.WORKER, Map.of(7443, 40001), "c", null, null)))
                .write(layout.stateFile());
        return layout;
    }

    private String rebootFails(MiniLayout layout, String node) {
        return assertThrows(MiniFailure.class, () -> new MiniReboot(layout, progress::add)
                .reboot(node, Duration.ofMinutes(1), NO_RECOVERY, progress::add)).getMessage();
    }

    private String startFails(MiniLayout layout) {
        return assertThrows(MiniFailure.class, () -> new MiniStart(layout, progress::add)
                .start(Duration.ofMinutes(1), Duration.ofMinutes(1), NO_RECOVERY, progress::add)).getMessage();
    }

    @Test
    @DisplayName("reboot without a cluster, of a node it does not have, or of a cluster that does not run says what to do instead")
    void rebootRefusals() throws Exception {
        assertTrue(rebootFails(new MiniLayout(dir.resolve("none")), "worker-0").contains("sextant mini up"));
        MiniLayout layout = cluster(MiniState.UP, ProcessRef.of(ProcessHandle.current(), "java"));
        String unknown = rebootFails(layout, "worker-9");
        assertTrue(unknown.contains("no node worker-9") && unknown.contains("[control-plane-0, worker-0]"), unknown);
        assertTrue(rebootFails(cluster(MiniState.STOPPED, null), "worker-0").contains("'sextant mini start' boots it"));
    }

    @Test
    @DisplayName("start refuses a cluster that still runs, and one that was never initialized, before powering anything on")
    void startRefusals() throws Exception {
        assertTrue(startFails(new MiniLayout(dir.resolve("none"))).contains("sextant mini up"));
        String running = startFails(cluster(MiniState.UP, ProcessRef.of(ProcessHandle.current(), "java")));
        assertTrue(running.contains("is running (2 processes)"), running);
        String uninitialized = startFails(cluster(MiniState.STOPPED, null));
        assertTrue(uninitialized.contains("never initialized"), uninitialized);
        assertEquals(MiniState.STOPPED, MiniState.read(new MiniLayout(dir).stateFile()).orElseThrow().phase());
    }

    @Test
    @DisplayName("powers on the control plane first and the workers in a second wave, whatever order mini.json lists the nodes in")
    void controlPlaneFirst() {
        MiniState.Node worker = new MiniState.Node("worker-0", NodeRole.WORKER, Map.of(), "c", null, null);
        MiniState.Node worker1 = new MiniState.Node("worker-1", NodeRole.WORKER, Map.of(), "c", null, null);
        MiniState.Node cp = new MiniState.Node("control-plane-0", NodeRole.CONTROL_PLANE, Map.of(), "c", null, null);
        assertEquals(List.of(List.of(cp), List.of(worker, worker1)), MiniStart.waves(List.of(worker, cp, worker1)));
    }

    @Test
    @DisplayName("a node is back only with the same disk and 'since' as before its power cycle; a new disk fails, naming both")
    void sameDisk() throws Exception {
        NodeComeback comeback = new NodeComeback(new MiniLayout(dir), progress::add, NO_RECOVERY);
        Optional<NodeStatusLine> before = status(UUID, "2026-11-24T03:00:00Z", "join");
        comeback.checkSameDisk("worker-0", before, status(UUID, "2026-11-24T03:00:00Z", "rejoin").orElseThrow());
        assertTrue(progress.get(progress.size() - 1).contains("same state disk"), progress::toString);

        String formatted = assertThrows(MiniFailure.class, () -> comeback.checkSameDisk("worker-0", before,
                status("00000000-0000-4000-8000-000000000002", "2026-11-24T04:00:00Z", "join").orElseThrow())).getMessage();
        assertTrue(formatted.contains("before disk=encrypted:" + UUID) && formatted.contains("never format it anew"), formatted);
        assertThrows(MiniFailure.class, () -> comeback.checkSameDisk("worker-0", before,
                status(UUID, "2026-11-24T04:00:00Z", "rejoin").orElseThrow()));
    }

    @Test
    @DisplayName("compares with the last boot that reached 'bootstrapped', even when a failed boot came in between")
    void lastBootstrappedAcrossBoots() throws Exception {
        Path console = Files.createDirectories(dir.resolve("worker-0")).resolve("console.log");
        Files.writeString(dir.resolve("worker-0/console.1.log"), status(UUID, "2026-11-24T03:00:00Z", "join").orElseThrow().line() + "\n");
        Files.writeString(dir.resolve("worker-0/console.2.log"), "SEXTANT-STATUS failed reason=power cut\n");
        Files.writeString(console, "booting\n");
        assertEquals("2026-11-24T03:00:00Z", NodeComeback.lastBootstrapped(console).orElseThrow().since());
        assertTrue(NodeComeback.lastBootstrapped(dir.resolve("none/console.log")).isEmpty());
    }

    @Test
    @DisplayName("prints the figure as issue 13 names it: power-on -> recovered / rejoined and verified")
    void figure() {
        var back = new NodeComeback.Back("worker-0", NodeRole.WORKER, status(UUID, "x", "rejoin").orElseThrow(), null,
                Duration.ofSeconds(74));
        assertEquals("worker-0: power-on -> rejoined and verified: 74 s", back.figure());
        assertEquals("control-plane-0: power-on -> recovered and verified: 90 s", new NodeComeback.Back("control-plane-0",
                NodeRole.CONTROL_PLANE, status(UUID, "x", "recovery").orElseThrow(), null, Duration.ofSeconds(90)).figure());
    }

    @Test
    @DisplayName("keeps the mini directory 0700 and the EK CA's private key 0600")
    void privateFiles() throws Exception {
        MiniLayout layout = new MiniLayout(dir.resolve("m"));
        PrivateFiles.directory(layout.dir());
        HostIdentities.ca(layout, progress::add);
        HostIdentities.measurementsKey(layout, progress::add);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.dir())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.caDir())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.caKey())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.measurementsKey())));
    }

    private static Optional<NodeStatusLine> status(String uuid, String since, String via) {
        return NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=worker disk=encrypted:" + uuid
                + " kubernetes=not-installed via=" + via + " since=" + since);
    }
}
