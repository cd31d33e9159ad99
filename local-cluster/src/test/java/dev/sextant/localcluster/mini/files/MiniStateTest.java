package dev.sextant.localcluster.mini.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.ProcessRef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("mini.json, the state status and down read")
class MiniStateTest {
    @TempDir
    Path dir;

    private final MiniState.Node worker = new MiniState.Node("worker-0", NodeRole.WORKER, Map.of(7443, 40123),
            "/m/worker-0/console.log", new ProcessRef(123, 1700000000000L, "qemu-system-x86_64"),
            new ProcessRef(124, 1700000000000L, "swtpm"));

    @Test
    @DisplayName("round-trips nodes, roles, ports, processes and the cluster ID")
    void roundTrip() throws IOException {
        MiniState state = new MiniState(MiniState.VERSION, MiniState.UP, "2026-11-22T06:00:00Z", "/m/image.raw",
                "ab".repeat(32), List.of(worker));
        Path file = dir.resolve("mini.json");
        state.write(file);
        MiniState read = MiniState.read(file).orElseThrow();
        assertEquals(state, read);
        assertEquals(40123, read.nodes().get(0).hostPort(7443));
        assertFalse(Files.exists(dir.resolve("mini.json.tmp")), "the temporary file is renamed into place");
    }

    @Test
    @DisplayName("keeps no process state beyond pid, start time and program (liveness is looked up, not stored)")
    void noDerivedFields() {
        String json = new String(new MiniState(MiniState.VERSION, MiniState.UP, "t", "i", null, List.of(worker)).toJson(),
                StandardCharsets.UTF_8);
        assertFalse(json.contains("alive"), json);
        assertTrue(json.contains("\"pid\" : 123"), json);
    }

    @Test
    @DisplayName("counts a recorded process as running only while that very process lives")
    void runningMeansSameProcess() {
        ProcessRef self = ProcessRef.of(ProcessHandle.current(), "java");
        assertTrue(self.alive(), "this JVM");
        assertFalse(new ProcessRef(self.pid(), self.startedEpochMillis() - 60_000, "java").alive(),
                "same pid, other start time: a reused pid");
        assertFalse(new ProcessRef(self.pid(), self.startedEpochMillis(), "qemu-system-x86_64").alive(),
                "same pid, other program");
    }

    @Test
    @DisplayName("refuses a file that is not a state file, naming it")
    void notAStateFile() throws IOException {
        Path file = Files.writeString(dir.resolve("mini.json"), "{\"version\": 99, \"nodes\": []}");
        var e = assertThrows(IOException.class, () -> MiniState.read(file));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("99"), e.getMessage());
        Files.writeString(file, "not json");
        assertThrows(IOException.class, () -> MiniState.read(file));
    }
}
