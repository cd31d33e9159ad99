package dev.sextant.localcluster.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.Accel;
import dev.sextant.localcluster.qemu.ProcessRef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What mini does around the nodes, without QEMU: the boots themselves are e2e's MiniClusterTest. */
@DisplayName("A mini cluster directory")
class MiniClusterTest {
    @TempDir
    Path dir;
    private final List<String> progress = new ArrayList<>();

    @Test
    @DisplayName("refuses a second 'up' while the cluster's processes run, says so and returns 1 without touching them")
    void upRefusesWhileRunning() throws Exception {
        MiniLayout layout = new MiniLayout(dir);
        ProcessRef self = ProcessRef.of(ProcessHandle.current(), "java");
        new MiniState(MiniState.VERSION, MiniState.UP, "t", "i", null, List.of(new MiniState.Node("control-plane-0",
                NodeRole.CONTROL_PLANE, Map.of(7443, 40000), "c", self, self))).write(layout.stateFile());
        var options = new MiniCluster.UpOptions(1, 1, dir.resolve("image"), Optional.empty(), Accel.TCG, false,
                Duration.ofMinutes(1), Duration.ofMinutes(1));
        int exit = new MiniCluster(layout, progress::add).up(options, (args, out) -> {
            throw new AssertionError("init must not run");
        }, progress::add);
        assertEquals(1, exit);
        assertTrue(progress.get(0).contains("already running") && progress.get(0).contains("sextant mini down"),
                progress::toString);
    }

    @Test
    @DisplayName("'down' stops the recorded processes by pid, keeps the files, and marks the cluster stopped")
    void downStopsRecordedProcesses() throws Exception {
        MiniLayout layout = new MiniLayout(dir);
        Process sleeper = new ProcessBuilder("sleep", "300").start();
        ProcessRef ref = ProcessRef.of(sleeper.toHandle(), "sleep");
        new MiniState(MiniState.VERSION, MiniState.UP, "t", "i", null, List.of(new MiniState.Node("worker-0",
                NodeRole.WORKER, Map.of(7443, 40000), "c", ref, null))).write(layout.stateFile());

        assertEquals(0, new MiniCluster(layout, progress::add).down(false));
        assertFalse(sleeper.isAlive(), "the recorded process still runs");
        assertTrue(progress.stream().anyMatch(l -> l.contains("worker-0: stopped QEMU (pid " + sleeper.pid())), progress::toString);
        assertEquals(MiniState.STOPPED, MiniState.read(layout.stateFile()).orElseThrow().phase());
        assertTrue(Files.exists(layout.stateFile()), "down removes nothing unless --purge");
    }

    @Test
    @DisplayName("'down --purge' removes the directory once nothing runs; 'down' without a cluster says so and succeeds")
    void purgeAndNothingToStop() throws Exception {
        MiniLayout layout = new MiniLayout(dir.resolve("mini"));
        assertEquals(0, new MiniCluster(layout, progress::add).down(false));
        assertTrue(progress.get(0).startsWith("no mini cluster in "), progress::toString);
        Files.createDirectories(layout.dir());
        new MiniState(MiniState.VERSION, MiniState.STOPPED, "t", "i", null, List.of()).write(layout.stateFile());
        assertEquals(0, new MiniCluster(layout, progress::add).down(true));
        assertFalse(Files.exists(layout.dir()));
    }
}
