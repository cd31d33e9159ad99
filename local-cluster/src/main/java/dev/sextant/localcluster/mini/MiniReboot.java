package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.mini.boot.BootedNodes;
import dev.sextant.localcluster.mini.boot.NodeComeback;
import dev.sextant.localcluster.mini.boot.PowerOff;
import dev.sextant.localcluster.mini.boot.StartOrder;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.files.NodeLaunch;
import dev.sextant.localcluster.mini.node.NodeSettings;
import dev.sextant.localcluster.mini.operator.NodeAttestation;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.HostTools;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code sextant mini reboot NODE}: a power cycle of one node of a running cluster. QEMU and swtpm
 * are stopped (QEMU runs with -no-reboot, so this is what a reboot is here), swtpm starts again on
 * the same TPM state and QEMU with the same arguments; the state disk keeps its content. A node that
 * is off is only powered on. Then it waits until the node is back and verified ({@link NodeComeback}):
 * recovered with {@code sextant recover} where it cannot rejoin ({@link StartOrder#rejoins}). A node
 * that does not come back keeps running, so its console can be read.
 */
final class MiniReboot {
    private final MiniLayout layout;
    private final Consumer<String> progress;

    MiniReboot(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    /** Returns once {@code name} is back and verified; the figure goes to {@code figures}. */
    void reboot(String name, Duration timeout, OperatorCommand recover, Consumer<String> figures) throws Exception {
        MiniState state = MiniState.read(layout.stateFile()).orElseThrow(() -> new MiniFailure("no mini cluster in "
                + layout.dir() + "; start one with 'sextant mini up'"));
        if (state.running().isEmpty()) {
            throw new MiniFailure("the mini cluster in " + layout.dir() + " is not running (" + state.phase()
                    + "); 'sextant mini start' boots it");
        }
        Optional<MiniState.Node> found = state.nodes().stream().filter(n -> n.name().equals(name)).findFirst();
        MiniState.Node node = found.orElseThrow(() -> new MiniFailure("no node " + name + " in the mini cluster in "
                + layout.dir() + "; its nodes: " + state.nodes().stream().map(MiniState.Node::name).toList()));
        NodeAttestation clusterPolicy = NodeAttestation.ofCluster(layout);
        HostTools tools = HostTools.locate().orElseThrow(() -> new MiniFailure("host tools missing: "
                + String.join("; ", HostTools.missing()) + " (scripts/setup.sh installs them)"));

        PowerOff powerOff = new PowerOff(progress);
        if (!powerOff.qemu(node) || !powerOff.swtpm(node)) {
            throw new MiniFailure(name + " could not be powered off (its processes survived SIGKILL)");
        }
        progress.accept(name + ": powered off; its disks and TPM state are kept");
        boolean rejoins = StartOrder.rejoins(node, NodeLaunch.read(layout.launch(name)).settings()
                .containsKey(NodeSettings.JOIN_ENDPOINTS), state);
        NodeComeback comeback = new NodeComeback(layout, progress, recover);
        NodeComeback.PoweredOn on = comeback.powerOn(new BootedNodes(layout, progress, state), node, tools);
        try {
            if (!rejoins) {
                comeback.recover(on, timeout);
            }
            figures.accept(comeback.awaitBack(on, clusterPolicy, timeout).figure());
        } catch (MiniFailure e) {
            throw new MiniFailure(e.getMessage() + " (" + name + " keeps running; 'sextant mini down' stops the cluster)", e);
        }
    }
}
