package dev.sextant.localcluster.mini.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
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

/** When a power-cycled node counts as back; the boots themselves are e2e's MiniClusterTest. */
@DisplayName("A node coming back after a power cycle")
class NodeComebackTest {
    private static final OperatorCommand NO_RECOVERY = (args, out) -> {
        throw new AssertionError("recover must not run");
    };
    private static final String UUID = "5f1c0e2a-0000-4000-8000-000000000001";

    @TempDir
    Path dir;
    private final List<String> progress = new ArrayList<>();

    @Test
    @DisplayName("is back only with the same disk and 'since' as before its power cycle; a new disk fails, naming both")
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
    @DisplayName("is compared with the last boot that reached 'bootstrapped', even when a failed boot came in between")
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
        var back = new NodeComeback.Back("worker-0", NodeRole.WORKER, Map.of(), status(UUID, "x", "rejoin").orElseThrow(), null,
                Duration.ofSeconds(74));
        assertEquals("worker-0: power-on -> rejoined and verified: 74 s", back.figure());
        assertEquals("control-plane-0: power-on -> recovered and verified: 90 s", new NodeComeback.Back("control-plane-0",
                NodeRole.CONTROL_PLANE, Map.of(), status(UUID, "x", "recovery").orElseThrow(), null, Duration.ofSeconds(90)).figure());
    }

    private static Optional<NodeStatusLine> status(String uuid, String since, String via) {
        return NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=worker disk=encrypted:" + uuid
                + " kubernetes=not-installed via=" + via + " since=" + since);
    }
}
