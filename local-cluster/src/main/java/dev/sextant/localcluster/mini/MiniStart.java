package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.mini.boot.BootedNodes;
import dev.sextant.localcluster.mini.boot.NodeComeback;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.mini.report.Summary;
import dev.sextant.localcluster.qemu.HostTools;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code sextant mini start}: boots a cluster that {@code mini down} stopped (its files kept). Every
 * node is powered on as it was first booted; the control plane is recovered with the cluster's own
 * master secret, the workers rejoin through it; every node must come back with its own disk and
 * verify with this cluster's PCR 15 ({@link NodeComeback}). Ends with the summary of {@code mini up}.
 * A start that fails stops the nodes it powered on.
 */
final class MiniStart {
    private final MiniLayout layout;
    private final Consumer<String> progress;

    MiniStart(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    /** Returns once every node is back and verified, the summary printed to {@code summaryOut}. */
    void start(Duration bootTimeout, Duration joinTimeout, OperatorCommand recover, Consumer<String> summaryOut)
            throws Exception {
        MiniState state = stoppedCluster();
        NodeAttestation clusterPolicy = NodeAttestation.ofCluster(layout);
        HostTools tools = HostTools.locate().orElseThrow(() -> new MiniFailure("host tools missing: "
                + String.join("; ", HostTools.missing()) + " (scripts/setup.sh installs them)"));

        BootedNodes booted = new BootedNodes(layout, progress, state.withPhase(MiniState.STARTING));
        try (BootedNodes.Guard guard = booted.guard("mini start", false)) {
            NodeComeback comeback = new NodeComeback(layout, progress, recover);
            List<NodeComeback.Back> back = new ArrayList<>();
            for (List<MiniState.Node> wave : waves(state.nodes())) {
                List<NodeComeback.PoweredOn> powered = new ArrayList<>();
                for (MiniState.Node node : wave) {
                    powered.add(comeback.powerOn(booted, node, tools));
                }
                for (NodeComeback.PoweredOn on : powered) {
                    boolean controlPlane = on.node().role() == NodeRole.CONTROL_PLANE;
                    back.add(comeback.awaitBack(on, clusterPolicy, controlPlane ? bootTimeout : joinTimeout));
                    summaryOut.accept(back.get(back.size() - 1).figure());
                }
            }
            booted.update(booted.state().withPhase(MiniState.UP));
            guard.succeeded();
            printSummary(back, clusterPolicy, summaryOut);
        }
    }

    /** The cluster in the layout, stopped and initialized: what start can boot again. */
    private MiniState stoppedCluster() throws IOException, MiniFailure {
        MiniState state = MiniState.read(layout.stateFile()).orElseThrow(() -> new MiniFailure("no mini cluster in "
                + layout.dir() + "; start a new one with 'sextant mini up'"));
        if (!state.running().isEmpty()) {
            throw new MiniFailure("the mini cluster in " + layout.dir() + " is running (" + state.running().size()
                    + " processes); 'sextant mini status' shows it, 'sextant mini reboot NODE' power-cycles a node");
        }
        if (state.clusterIdIfKnown().isEmpty() || !Files.isRegularFile(layout.masterSecret())) {
            throw new MiniFailure("the cluster in " + layout.dir() + " was never initialized (no cluster ID or no "
                    + layout.masterSecret().getFileName() + "); 'sextant mini up' starts a new one");
        }
        return state;
    }

    private void printSummary(List<NodeComeback.Back> back, NodeAttestation clusterPolicy, Consumer<String> summaryOut) {
        List<Summary.Row> rows = new ArrayList<>();
        Optional<NodeStatusLine> controlPlane = Optional.empty();
        for (NodeComeback.Back node : back) {
            rows.add(Summary.Row.of(node.name(), node.role(), clusterPolicy.describe(Optional.of(node.outcome())),
                    node.status()));
            controlPlane = node.role() == NodeRole.CONTROL_PLANE ? Optional.of(node.status()) : controlPlane;
        }
        progress.accept("cluster started: " + rows.size() + " node(s) back, each with its own disk, and verified");
        new Summary(rows, Summary.kubernetes(controlPlane, layout.kubeconfig(), Files.isRegularFile(layout.kubeconfig())))
                .render().forEach(summaryOut);
        summaryOut.accept("Console logs: " + layout.dir() + "/<node>/console.log (earlier boots: console.<n>.log)");
    }

    /**
     * The order nodes are powered on in: the control planes, then, once those are back, the workers.
     * The workers rejoin through the control plane's join service, and guests booting at once share
     * the host's cores (the control plane comes back sooner alone).
     */
    static List<List<MiniState.Node>> waves(List<MiniState.Node> nodes) {
        return List.of(nodes.stream().filter(n -> n.role() == NodeRole.CONTROL_PLANE).toList(),
                nodes.stream().filter(n -> n.role() != NodeRole.CONTROL_PLANE).toList());
    }
}
