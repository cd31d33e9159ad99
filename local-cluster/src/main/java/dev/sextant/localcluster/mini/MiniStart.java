package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.mini.boot.BootedNodes;
import dev.sextant.localcluster.mini.boot.NodeComeback;
import dev.sextant.localcluster.mini.boot.StartOrder;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.operator.ClusterEtcd;
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
 * node is powered on as it was first booted, in the {@link StartOrder}: a quorum of control planes
 * recovered with the cluster's own master secret, the other control planes rejoining through them,
 * then the workers; every node must come back with its own disk and verify with this cluster's
 * PCR 15 ({@link NodeComeback}). Ends with the summary of {@code mini up}. A start that fails stops
 * the nodes it powered on.
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
            StartOrder order = StartOrder.of(state.nodes());
            List<NodeComeback.Back> back = new ArrayList<>();
            // Recovered together: each one's etcd waits for a quorum before its node reports back.
            List<NodeComeback.PoweredOn> quorum = powerOn(comeback, booted, order.recovered(), tools);
            for (NodeComeback.PoweredOn on : quorum) {
                comeback.recover(on, bootTimeout);
            }
            awaitBack(comeback, quorum, clusterPolicy, bootTimeout, back, summaryOut);
            for (List<MiniState.Node> wave : List.of(order.rejoining(), order.workers())) {
                awaitBack(comeback, powerOn(comeback, booted, wave, tools), clusterPolicy, joinTimeout, back, summaryOut);
            }
            booted.update(booted.state().withPhase(MiniState.UP));
            guard.succeeded();
            printSummary(back, clusterPolicy, summaryOut);
        }
    }

    private static List<NodeComeback.PoweredOn> powerOn(NodeComeback comeback, BootedNodes booted,
                                                        List<MiniState.Node> wave, HostTools tools) throws IOException {
        List<NodeComeback.PoweredOn> powered = new ArrayList<>();
        for (MiniState.Node node : wave) {
            powered.add(comeback.powerOn(booted, node, tools));
        }
        return powered;
    }

    private static void awaitBack(NodeComeback comeback, List<NodeComeback.PoweredOn> wave, NodeAttestation clusterPolicy,
                                  Duration timeout, List<NodeComeback.Back> back, Consumer<String> figures)
            throws Exception {
        for (NodeComeback.PoweredOn on : wave) {
            NodeComeback.Back node = comeback.awaitBack(on, clusterPolicy, timeout);
            back.add(node);
            figures.accept(node.figure());
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

    private void printSummary(List<NodeComeback.Back> back, NodeAttestation clusterPolicy, Consumer<String> summaryOut)
            throws IOException {
        ClusterEtcd etcd = ClusterEtcd.client(layout);
        List<Summary.Row> rows = new ArrayList<>();
        Optional<NodeStatusLine> controlPlane = Optional.empty();
        for (NodeComeback.Back node : back) {
            rows.add(Summary.Row.of(node.name(), node.role(), clusterPolicy.describe(Optional.of(node.outcome())),
                    node.status(), etcd.member(node.role(), node.ports())));
            controlPlane = node.role() == NodeRole.CONTROL_PLANE ? Optional.of(node.status()) : controlPlane;
        }
        progress.accept("cluster started: " + rows.size() + " node(s) back, each with its own disk, and verified");
        new Summary(rows, Summary.kubernetes(controlPlane, layout.kubeconfig(), Files.isRegularFile(layout.kubeconfig())))
                .render().forEach(summaryOut);
        summaryOut.accept("Console logs: " + layout.dir() + "/<node>/console.log (earlier boots: console.<n>.log)");
    }
}
