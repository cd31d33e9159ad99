package dev.sextant.localcluster.mini.boot;

import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.QemuNode;
import dev.sextant.localcluster.verify.AtlsProbe;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The waits of mini on a booting node: until it verifies over attested TLS, until its console shows
 * its status line. Each ends early when QEMU or swtpm exits or the node reports a failure, prints a
 * heartbeat with the console's last line, and times out with a message naming what it waited for,
 * the last console line and the console log.
 */
public final class NodeWaits {
    /** After "bootstrapped" the bootstrapper restarts in verify-only mode: a short gap without an answer. */
    public static final Duration REVERIFY_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration POLL = Duration.ofSeconds(2);
    private static final Duration HEARTBEAT = Duration.ofSeconds(20);
    private static final Pattern ANSI_ESCAPE = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z]");

    private final Consumer<String> progress;

    public NodeWaits(Consumer<String> progress) {
        this.progress = progress;
    }

    /** Until the node's bootstrapper port answers a handshake that verifies; a rejection fails at once. */
    public AtlsProbe.Outcome verified(String name, QemuNode node, NodeAttestation attestation, Duration timeout, String what)
            throws IOException, MiniFailure {
        Instant start = Instant.now();
        Instant deadline = start.plus(timeout);
        Instant nextHeartbeat = start.plus(HEARTBEAT);
        progress.accept(name + ": waiting for " + what + " (up to " + timeout.toMinutes() + " min)");
        while (true) {
            failIfDown(name, node);
            Optional<AtlsProbe.Outcome> outcome = attestation.once(node.hostPort(NodeRole.BOOTSTRAPPER_PORT));
            if (outcome.isPresent()) {
                if (outcome.get().rejected().isPresent()) {
                    throw new MiniFailure(name + " was REJECTED over attested TLS: " + outcome.get().rejected().get()
                            + "; console log: " + node.consoleLog());
                }
                progress.accept(name + ": verified over attested TLS after " + seconds(start) + ": "
                        + attestation.verifiedPcrs() + " as expected, EK/AK chain to the mini EK CA");
                return outcome.get();
            }
            nextHeartbeat = tick(name, node, timeout, what, start, deadline, nextHeartbeat);
        }
    }

    /** Until the console of this boot shows a SEXTANT-STATUS line; a "failed" one fails at once. */
    public NodeStatusLine status(String name, QemuNode node, Duration timeout, String what) throws IOException, MiniFailure {
        Instant start = Instant.now();
        Instant deadline = start.plus(timeout);
        Instant nextHeartbeat = start.plus(HEARTBEAT);
        progress.accept(name + ": waiting for " + what + " (up to " + timeout.toMinutes() + " min)");
        while (true) {
            Optional<NodeStatusLine> status = NodeStatusLine.last(node.console().lines());
            if (status.isPresent()) {
                if (!status.get().bootstrapped()) {
                    throw new MiniFailure(name + " failed: " + status.get().reason() + "; console log: " + node.consoleLog());
                }
                progress.accept(name + ": bootstrapped after " + seconds(start) + " (" + status.get().line() + ")");
                return status.get();
            }
            failIfDown(name, node);
            nextHeartbeat = tick(name, node, timeout, what + " (no SEXTANT-STATUS line)", start, deadline, nextHeartbeat);
        }
    }

    /** Fails when QEMU or swtpm exited or the node reported a failure. */
    private void failIfDown(String name, QemuNode node) throws IOException, MiniFailure {
        Optional<String> stopped = node.whyNotRunning();
        if (stopped.isPresent()) {
            throw new MiniFailure(name + " stopped: " + stopped.get() + "; console log: " + node.consoleLog());
        }
        Optional<NodeStatusLine> status = NodeStatusLine.last(node.console().lines());
        if (status.isPresent() && !status.get().bootstrapped()) {
            throw new MiniFailure(name + " failed: " + status.get().reason() + "; console log: " + node.consoleLog());
        }
    }

    /** Times out past the deadline, prints a heartbeat when due, sleeps; returns when the next heartbeat is due. */
    private Instant tick(String name, QemuNode node, Duration timeout, String what, Instant start, Instant deadline,
                         Instant nextHeartbeat) throws IOException, MiniFailure {
        if (Instant.now().isAfter(deadline)) {
            throw new MiniFailure("timed out after " + timeout.toMinutes() + " min waiting for " + name + ": " + what
                    + "; last console line: \"" + lastLine(node) + "\"; console log: " + node.consoleLog());
        }
        if (Instant.now().isAfter(nextHeartbeat)) {
            progress.accept(name + ": still waiting (" + seconds(start) + "); console: " + lastLine(node));
            nextHeartbeat = Instant.now().plus(HEARTBEAT);
        }
        sleep(POLL);
        return nextHeartbeat;
    }

    private static String lastLine(QemuNode node) throws IOException {
        return lastLine(node.console().lines(), 160);
    }

    /** The last console line with text, without terminal colour codes (systemd colours its status lines). */
    public static String lastLine(List<String> lines, int max) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            String text = ANSI_ESCAPE.matcher(lines.get(i)).replaceAll("").strip();
            if (!text.isEmpty()) {
                return text.length() <= max ? text : text.substring(0, max - 1) + "…";
            }
        }
        return "(nothing yet)";
    }

    private static String seconds(Instant since) {
        return Duration.between(since, Instant.now()).toSeconds() + " s";
    }

    public static void sleep(Duration pause) throws IOException {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
