package dev.sextant.localcluster.rollout;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Moves a cluster's nodes to a new image one at a time (docs/image-upgrades.md, "The rollout"), control
 * planes first, so that a new node of either image finds a join service of its own image and, where
 * three or more control planes run, etcd keeps its quorum. Each node is powered off, gets the new boot
 * disk, is powered on and must come back proving the new version before the next one moves. A node that
 * does not gets its old boot disk back and must come back proving the old version, and the rollout stops
 * there: the caller retires nothing. A node that proves the new version already is skipped, so running the
 * rollout again resumes where it stopped.
 *
 * <p>The measurement set that admits both images must be in force before {@link #run}; retiring the old
 * image afterwards is the caller's step, because only the caller knows the rollout finished everywhere.
 */
public final class ImageRollout {
    private final NodeMachines machines;
    private final NodeVersions versions;
    private final Duration timeout;
    private final Duration rollbackTimeout;
    private final Clock clock;
    private final Consumer<String> progress;

    /**
     * @param timeout         how long a node has to come back on the new image
     * @param rollbackTimeout how long it then has to come back on its old one (a known-good boot: never
     *                        shorter than a normal reboot, however short {@code timeout} was set)
     */
    public ImageRollout(NodeMachines machines, NodeVersions versions, Duration timeout, Duration rollbackTimeout, Clock clock,
                        Consumer<String> progress) {
        this.machines = machines;
        this.versions = versions;
        this.timeout = timeout;
        this.rollbackTimeout = rollbackTimeout;
        this.clock = clock;
        this.progress = progress;
    }

    /** A node of the cluster, in the order it was created. */
    public record Node(String name, boolean controlPlane) {
    }

    /** One node moved: the version it proved before and after, and power-off to verified on the new image. */
    public record Moved(String node, String from, String to, Duration offToVerified) {
        public String line() {
            return node + ": " + from + " -> " + to + ", power-off -> verified: " + offToVerified.toSeconds() + " s";
        }
    }

    /** What the rollout did: the nodes it moved, and those that already ran the new image. */
    public record Report(List<Moved> moved, List<String> alreadyOnNewImage) {
        public Report {
            moved = List.copyOf(moved);
            alreadyOnNewImage = List.copyOf(alreadyOnNewImage);
        }
    }

    public Report run(List<Node> nodes, Path newImage, String newVersion) throws Exception {
        List<Moved> moved = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (Node node : order(nodes)) {
            Optional<String> before = versions.proven(node.name());
            if (before.isPresent() && before.get().equals(newVersion)) {
                progress.accept(node.name() + ": already proves image " + newVersion + "; skipped");
                skipped.add(node.name());
                continue;
            }
            if (before.isEmpty()) {
                throw new RolloutStopped(node.name(), machines.console(node.name()), false,
                        "it does not verify on any admitted image before its move; bring it back first", null);
            }
            moved.add(move(node, newImage, before.get(), newVersion));
        }
        return new Report(moved, skipped);
    }

    /** Control planes first, each group in the order given. */
    static List<Node> order(List<Node> nodes) {
        List<Node> ordered = new ArrayList<>(nodes.stream().filter(Node::controlPlane).toList());
        ordered.addAll(nodes.stream().filter(n -> !n.controlPlane()).toList());
        return ordered;
    }

    private Moved move(Node node, Path newImage, String from, String newVersion) throws Exception {
        String name = node.name();
        Instant off = clock.instant();
        machines.powerOff(name);
        machines.replaceBootDisk(name, newImage);
        progress.accept(name + ": powered off, boot disk replaced by image " + newVersion);
        machines.powerOn(name);
        String proven;
        try {
            proven = versions.awaitBack(name, timeout);
        } catch (Exception e) {
            throw rollBack(name, from, "not back and verified within " + timeout.toSeconds() + " s (" + e.getMessage() + ")", e);
        }
        if (!proven.equals(newVersion)) {
            throw rollBack(name, from, "it came back proving image " + proven + ", not " + newVersion, null);
        }
        Moved result = new Moved(name, from, proven, Duration.between(off, clock.instant()));
        progress.accept(result.line());
        return result;
    }

    private RolloutStopped rollBack(String name, String oldVersion, String reason, Exception cause) {
        progress.accept(name + ": " + reason + "; rolling back to its old boot disk");
        boolean back;
        try {
            machines.powerOff(name);
            machines.restoreBootDisk(name);
            machines.powerOn(name);
            String proven = versions.awaitBack(name, rollbackTimeout);
            back = proven.equals(oldVersion);
            reason += back ? "; it is back and verified on image " + proven
                    : "; it came back on its old boot disk proving image " + proven + ", not " + oldVersion;
        } catch (Exception e) {
            back = false;
            reason += "; it did not come back on its old boot disk either (" + e.getMessage() + ")";
        }
        progress.accept(name + ": " + reason);
        return new RolloutStopped(name, machines.console(name), back, reason, cause);
    }
}
