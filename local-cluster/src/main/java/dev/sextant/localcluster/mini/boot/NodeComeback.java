package dev.sextant.localcluster.mini.boot;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.files.NodeLaunch;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.operator.NodeRecovery;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.ConsoleHistory;
import dev.sextant.localcluster.qemu.ConsoleLog;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.QemuNode;
import dev.sextant.localcluster.verify.AtlsProbe;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Powers a stopped node on again as it was first booted (its launch file: same disks, TPM state,
 * ports and settings; the previous console kept) and waits until it is back. A control plane's disk
 * waits for the operator, so where no quorum of control planes runs (a whole cluster starting, or
 * the one control plane that joins nothing) it is recovered with the cluster's own master secret
 * through {@code sextant recover} ({@link #recover}); workers, and control planes with running peers,
 * rejoin by themselves. Back means its status line says bootstrapped with the same state disk and
 * the same "since" as before the power cycle (a node that formatted its disk anew is no node that
 * came back), and it verifies over attested TLS with this cluster's PCR 15.
 */
public final class NodeComeback {
    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final NodeWaits waits;
    private final NodeRecovery recovery;

    public NodeComeback(MiniLayout layout, Consumer<String> progress, OperatorCommand recover) {
        this.layout = layout;
        this.progress = progress;
        this.waits = new NodeWaits(progress);
        this.recovery = new NodeRecovery(layout, progress, recover);
    }

    /** A node powered on again, with the status line of its previous boot (if it printed one). */
    public record PoweredOn(MiniState.Node node, QemuNode qemu, Optional<NodeStatusLine> before) {
    }

    /** A node that is back: its status line of this boot, its verification, and the time since power-on. */
    public record Back(String name, NodeRole role, Map<Integer, Integer> ports, NodeStatusLine status,
                       AtlsProbe.Outcome outcome, Duration fromPowerOn) {
        /** "power-on -> rejoined and verified: 74 s": how long the node took to come back, as the operator reads it. */
        public String figure() {
            String how = switch (status.via()) {
                case "recovery" -> "recovered";
                case "rejoin" -> "rejoined";
                case "join" -> "joined";
                case "init" -> "initialized";
                default -> status.via();
            };
            return name + ": power-on -> " + how + " and verified: " + fromPowerOn.toSeconds() + " s";
        }
    }

    public PoweredOn powerOn(BootedNodes booted, MiniState.Node node, HostTools tools) throws IOException {
        Optional<NodeStatusLine> before = lastBootstrapped(layout.consoleLog(node.name()));
        NodeLaunch launch = NodeLaunch.read(layout.launch(node.name()));
        QemuNode qemu = booted.boot(node.name(), node.role(), launch.config(tools, layout.nodeDir(node.name())));
        return new PoweredOn(node, qemu, before);
    }

    /** The last "bootstrapped" line of the node's boots so far (a failed boot in between prints none). */
    static Optional<NodeStatusLine> lastBootstrapped(Path console) throws IOException {
        for (Path boot : ConsoleHistory.newestFirst(console)) {
            Optional<NodeStatusLine> status = NodeStatusLine.last(new ConsoleLog(boot).lines())
                    .filter(NodeStatusLine::bootstrapped);
            if (status.isPresent()) {
                return status;
            }
        }
        return Optional.empty();
    }

    /** Sends the node's disk key with {@code sextant recover}; {@code timeout}: while its recovery port does not answer. */
    public void recover(PoweredOn on, Duration timeout) throws Exception {
        recovery.run(on.node().name(), on.qemu(), timeout);
    }

    /** {@code timeout}: for the status line; a node to be recovered must have been ({@link #recover}) first. */
    public Back awaitBack(PoweredOn on, NodeAttestation clusterPolicy, Duration timeout) throws Exception {
        String name = on.node().name();
        NodeRole role = on.node().role();
        NodeStatusLine status = waits.status(name, on.qemu(), timeout,
                "the end of its bootstrapping (recovered, or its disk key from a join service)");
        checkSameDisk(name, on.before(), status);
        AtlsProbe.Outcome outcome = waits.verified(name, on.qemu(), clusterPolicy, NodeWaits.REVERIFY_TIMEOUT,
                "its aTLS port after bootstrapping, with this cluster's PCR 15");
        return new Back(name, role, on.node().ports(), status, outcome, on.qemu().uptime());
    }

    void checkSameDisk(String name, Optional<NodeStatusLine> before, NodeStatusLine now) throws MiniFailure {
        if (before.isEmpty()) {
            progress.accept(name + ": no earlier boot printed a status line; disk and since not compared");
            return;
        }
        if (!before.get().disk().equals(now.disk()) || !before.get().since().equals(now.since())) {
            throw new MiniFailure(name + " came back with another state disk: before disk=" + before.get().disk()
                    + " since=" + before.get().since() + ", now disk=" + now.disk() + " since=" + now.since()
                    + " (a node must reopen its disk, never format it anew); console log: " + layout.consoleLog(name));
        }
        progress.accept(name + ": same state disk as before the power cycle (" + now.disk() + ", since " + now.since() + ")");
    }
}
