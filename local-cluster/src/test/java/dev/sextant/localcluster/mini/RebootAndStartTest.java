package dev.sextant.localcluster.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.ProcessRef;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What reboot and start check before they power anything on; the boots themselves are e2e's MiniClusterTest. */
@DisplayName("mini reboot and mini start")
class RebootAndStartTest {
    private static final OperatorCommand NO_RECOVERY = (args, out) -> {
        throw new AssertionError("recover must not run");
    };

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
        return assertThrows(MiniFailure.class, () -> new MiniCluster(layout, progress::add)
                .reboot(node, Duration.ofMinutes(1), NO_RECOVERY, progress::add)).getMessage();
    }

    private String startFails(MiniLayout layout) {
        return assertThrows(MiniFailure.class, () -> new MiniCluster(layout, progress::add)
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
}
