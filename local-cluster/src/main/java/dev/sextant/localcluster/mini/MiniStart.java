package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.qemu.HostTools;
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
public final class MiniStart {
    private final MiniLayout layout;
    private final Consumer<String> progress;

    public MiniStart(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    /** Returns once every node is back and verified, the summary printed to {@code summaryOut}. */
    public void start(Duration bootTimeout, Duration joinTimeout, OperatorCommand recover, Consumer<String> summaryOut)
            throws Exception {
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
        NodeAttestation clusterPolicy = NodeAttestation.ofCluster(layout);
        HostTools tools = HostTools.locate().orElseThrow(() -> new MiniFailure("host tools missing: "
                + String.join("; ", HostTools.missing()) + " (scripts/setup.sh installs them)"));

        BootedNodes booted = new BootedNodes(layout, progress, state.withPhase(MiniState.STARTING));
        Thread stopOnInterrupt = new Thread(() -> booted.stopAll("mini start was interrupted"), "mini-start-interrupted");
        Runtime.getRuntime().addShutdownHook(stopOnInterrupt);
        boolean success = false;
        try {
            // The control plane first, and the workers once it is back: they rejoin through its join service,
            // and guests booting at once share the host's cores (the control plane comes back sooner alone).
            NodeComeback comeback = new NodeComeback(layout, progress, recover);
            List<Summary.Row> rows = new ArrayList<>();
            Optional<NodeStatusLine> controlPlane = Optional.empty();
            for (List<MiniState.Node> wave : waves(state.nodes())) {
                List<NodeComeback.PoweredOn> powered = new ArrayList<>();
                for (MiniState.Node node : wave) {
                    powered.add(comeback.powerOn(booted, node, tools));
                }
                for (NodeComeback.PoweredOn on : powered) {
                    boolean cp = on.node().role() == NodeRole.CONTROL_PLANE;
                    NodeComeback.Back back = comeback.awaitBack(on, clusterPolicy, cp ? bootTimeout : joinTimeout);
                    summaryOut.accept(back.figure());
                    rows.add(Summary.Row.of(back.name(), back.role(), clusterPolicy.describe(Optional.of(back.outcome())),
                            back.status()));
                    controlPlane = cp ? Optional.of(back.status()) : controlPlane;
                }
            }
            booted.update(booted.state().withPhase(MiniState.UP));
            success = true;
            progress.accept("cluster started: " + rows.size() + " node(s) back, each with its own disk, and verified");
            new Summary(rows, Summary.kubernetes(controlPlane, layout.kubeconfig(), Files.isRegularFile(layout.kubeconfig())))
                    .render().forEach(summaryOut);
            summaryOut.accept("Console logs: " + layout.dir() + "/<node>/console.log (earlier boots: console.<n>.log)");
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnInterrupt);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it stops the nodes.
            }
            if (!success) {
                booted.stopAll("mini start failed");
            }
        }
    }

    /** The order nodes are powered on in: the control planes, then, once those are back, the workers. */
    static List<List<MiniState.Node>> waves(List<MiniState.Node> nodes) {
        return List.of(nodes.stream().filter(n -> n.role() == NodeRole.CONTROL_PLANE).toList(),
                nodes.stream().filter(n -> n.role() != NodeRole.CONTROL_PLANE).toList());
    }
}
