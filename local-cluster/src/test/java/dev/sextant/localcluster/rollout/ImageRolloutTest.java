package dev.sextant.localcluster.rollout;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The order and the rollback of a rollout, against a recording double of the machines (the real path,
 * QEMU under {@code mini upgrade}, is MiniClusterTest's): a node's boot disk decides the version it
 * proves when it comes back, unless it is one of the nodes an image cannot bring back.
 */
class ImageRolloutTest {
    private static final Path OLD = Path.of("/images/a.raw");
    private static final Path NEW = Path.of("/images/b.raw");

    /** Machines whose boot disk is a path, and nodes that prove the version of the disk they booted. */
    private static final class Cluster implements NodeMachines, NodeVersions {
        final Map<String, Path> disk = new HashMap<>();
        final Map<String, Path> previous = new HashMap<>();
        final Set<String> on = new HashSet<>();
        final Set<String> brokenOnNew = new HashSet<>();
        final List<String> steps = new ArrayList<>();

        Cluster(String... nodes) {
            for (String n : nodes) {
                disk.put(n, OLD);
                on.add(n);
            }
        }

        @Override public void powerOff(String node) { on.remove(node); steps.add("off " + node); }
        @Override public void replaceBootDisk(String node, Path image) { previous.put(node, disk.get(node)); disk.put(node, image); steps.add("disk " + node); }
        @Override public void restoreBootDisk(String node) { disk.put(node, previous.get(node)); steps.add("restore " + node); }
        @Override public void powerOn(String node) { on.add(node); steps.add("on " + node); }
        @Override public Path console(String node) { return Path.of("/mini", node, "console.log"); }

        @Override public Optional<String> proven(String node) {
            return on.contains(node) ? Optional.of(version(node)) : Optional.empty();
        }

        @Override public String awaitBack(String node, Duration timeout) {
            if (disk.get(node).equals(NEW) && brokenOnNew.contains(node)) {
                throw new IllegalStateException("no status line within " + timeout.toSeconds() + " s");
            }
            return version(node);
        }

        private String version(String node) {
            return disk.get(node).equals(NEW) ? "B" : "A";
        }
    }

    private static ImageRollout rollout(Cluster c) {
        return new ImageRollout(c, c, Duration.ofSeconds(300), Duration.ofSeconds(900), Clock.systemUTC(), line -> { });
    }

    private static final List<ImageRollout.Node> NODES = List.of(new ImageRollout.Node("worker-0", false),
            new ImageRollout.Node("control-plane-0", true), new ImageRollout.Node("control-plane-1", true));

    @Test
    @DisplayName("moves control planes first and one node at a time: each is off, gets the new disk, and is back before the next moves")
    void controlPlanesFirstOneAtATime() throws Exception {
        Cluster c = new Cluster("worker-0", "control-plane-0", "control-plane-1");
        ImageRollout.Report report = rollout(c).run(NODES, NEW, "B");
        assertEquals(List.of("off control-plane-0", "disk control-plane-0", "on control-plane-0",
                "off control-plane-1", "disk control-plane-1", "on control-plane-1",
                "off worker-0", "disk worker-0", "on worker-0"), c.steps);
        assertEquals(List.of("control-plane-0: A -> B", "control-plane-1: A -> B", "worker-0: A -> B"),
                report.moved().stream().map(m -> m.node() + ": " + m.from() + " -> " + m.to()).toList());
    }

    @Test
    @DisplayName("a node not back on the new image gets its old boot disk back, the rollout stops there naming it and its console, and no later node moves")
    void rollsBackAndStops() {
        Cluster c = new Cluster("worker-0", "control-plane-0", "control-plane-1");
        c.brokenOnNew.add("control-plane-0");
        RolloutStopped stopped = assertThrows(RolloutStopped.class, () -> rollout(c).run(NODES, NEW, "B"));
        assertEquals("control-plane-0", stopped.node());
        assertTrue(stopped.rolledBack());
        assertEquals(OLD, c.disk.get("control-plane-0"));
        assertTrue(stopped.getMessage().contains("/mini/control-plane-0/console.log"), stopped.getMessage());
        assertTrue(stopped.getMessage().contains("back and verified on image A"), stopped.getMessage());
        assertFalse(c.steps.stream().anyMatch(s -> s.endsWith("control-plane-1") || s.endsWith("worker-0")), c.steps.toString());
    }

    @Test
    @DisplayName("running it again resumes: nodes that prove the new image already are skipped")
    void resumes() throws Exception {
        Cluster c = new Cluster("worker-0", "control-plane-0", "control-plane-1");
        c.disk.put("control-plane-0", NEW);
        ImageRollout.Report report = rollout(c).run(NODES, NEW, "B");
        assertEquals(List.of("control-plane-0"), report.alreadyOnNewImage());
        assertEquals(List.of("control-plane-1", "worker-0"), report.moved().stream().map(ImageRollout.Moved::node).toList());
    }

    @Test
    @DisplayName("a node that verifies on no image before its move is not touched: the rollout stops and asks to bring it back first")
    void refusesANodeThatDoesNotVerify() {
        Cluster c = new Cluster("worker-0", "control-plane-0", "control-plane-1");
        c.on.remove("control-plane-1");
        RolloutStopped stopped = assertThrows(RolloutStopped.class, () -> rollout(c).run(NODES, NEW, "B"));
        assertEquals("control-plane-1", stopped.node());
        assertFalse(c.steps.contains("off control-plane-1"));
    }
}
