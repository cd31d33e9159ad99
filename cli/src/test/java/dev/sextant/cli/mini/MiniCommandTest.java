package dev.sextant.cli.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI side of mini; booting is covered by e2e's MiniClusterTest. */
@DisplayName("sextant mini")
class MiniCommandTest {
    @TempDir
    Path dir;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
    }

    @Test
    @DisplayName("status without a cluster says where it looked and exits 3")
    void statusWithoutCluster() {
        assertEquals(StatusCommand.NO_CLUSTER, run("mini", "status", "--dir", dir.toString()));
        assertTrue(out.toString().contains("no mini cluster in " + dir), out.toString());
    }

    @Test
    @DisplayName("revoke without a cluster says where it looked and exits 3; without a node name it is a usage error (exit 2)")
    void revokeWithoutCluster() {
        assertEquals(StatusCommand.NO_CLUSTER, run("mini", "revoke", "worker-0", "--dir", dir.toString()));
        assertTrue(out.toString().contains("no mini cluster in " + dir), out.toString());
        assertEquals(2, run("mini", "revoke", "--dir", dir.toString()));
    }

    @Test
    @DisplayName("down without a cluster has nothing to stop and succeeds")
    void downWithoutCluster() {
        assertEquals(0, run("mini", "down", "--dir", dir.toString()));
        assertTrue(out.toString().contains("no mini cluster in " + dir), out.toString());
    }

    @Test
    @DisplayName("up refuses an unknown accelerator as a usage error, before anything is created")
    void unknownAccelerator() {
        assertEquals(2, run("mini", "up", "--dir", dir.resolve("m").toString(), "--no-build", "--accel", "hvf"));
        assertTrue(err.toString().contains("--accel must be tcg or kvm, not hvf"), err.toString());
        assertTrue(!dir.resolve("m").toFile().exists(), "up created files before checking its options");
    }

    @Test
    @DisplayName("up refuses an even or out-of-range number of control planes as a usage error naming the rule,"
            + " before anything is created")
    void controlPlanesOddOneToSeven() {
        for (String n : new String[] {"2", "0", "9"}) {
            assertEquals(2, run("mini", "up", "--dir", dir.resolve("m").toString(), "--no-build", "--control-planes", n));
            assertTrue(err.toString().contains("--control-planes must be odd, between 1 and 7"), err.toString());
            assertTrue(err.toString().contains("got " + n), err.toString());
            assertTrue(!dir.resolve("m").toFile().exists(), "up created files before checking its options");
        }
    }

    @Test
    @DisplayName("reboot and start without a cluster say where they looked and what to run instead, exit 1")
    void rebootAndStartWithoutCluster() {
        assertEquals(1, run("mini", "reboot", "worker-0", "--dir", dir.toString()));
        assertTrue(err.toString().contains("sextant mini reboot: no mini cluster in " + dir + "; start one with 'sextant mini up'"),
                err.toString());
        assertEquals(1, run("mini", "start", "--dir", dir.toString()));
        assertTrue(err.toString().contains("sextant mini start: no mini cluster in " + dir), err.toString());
    }

    @Test
    @DisplayName("stop without a cluster says where it looked, exit 1; without a node name it is a usage error (exit 2)")
    void stopWithoutCluster() {
        assertEquals(1, run("mini", "stop", "control-plane-0", "--dir", dir.toString()));
        assertTrue(err.toString().contains("sextant mini stop: no mini cluster in " + dir + "; start one with 'sextant mini up'"),
                err.toString());
        assertEquals(2, run("mini", "stop", "--dir", dir.toString()));
    }

    @Test
    @DisplayName("reboot without a node name is a usage error (exit 2)")
    void rebootNeedsNode() {
        assertEquals(2, run("mini", "reboot", "--dir", dir.toString()));
        assertTrue(err.toString().contains("NODE"), err.toString());
    }

    @Test
    @DisplayName("turns a command's output into whole lines for the progress display")
    void lineWriter() throws Exception {
        List<String> lines = new ArrayList<>();
        try (LineWriter writer = new LineWriter(lines::add)) {
            writer.write("[lock] taking");
            writer.write(" the node lock\r\ncluster ID: ab\npartial");
        }
        assertEquals(List.of("[lock] taking the node lock", "cluster ID: ab", "partial"), lines);
    }
}
