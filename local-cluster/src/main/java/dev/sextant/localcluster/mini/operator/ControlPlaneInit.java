package dev.sextant.localcluster.mini.operator;

import dev.sextant.localcluster.init.InitResult;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.QemuNode;
import java.util.List;
import java.util.function.Consumer;

/**
 * Initializes the control plane as the operator does: {@code sextant init} against its forwarded
 * bootstrapper port with the cluster's files (signed measurements, EK CA, master and init secrets),
 * the kubeconfig and, on failure, the node's journal written into the cluster's directory.
 */
public final class ControlPlaneInit {
    private final MiniLayout layout;
    private final Consumer<String> progress;

    public ControlPlaneInit(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    /**
     * The node's answer; fails naming the journal and console log when init did not succeed.
     * {@code controlPlanes}: the most control planes the cluster admits (the join services refuse more).
     */
    public InitResult run(OperatorInit init, QemuNode node, String name, int controlPlanes) throws Exception {
        List<String> args = List.of("--endpoint", "127.0.0.1:" + node.hostPort(NodeRole.BOOTSTRAPPER_PORT),
                "--measurements", layout.measurements().toString(),
                "--measurements-key", layout.measurementsPublicKey().toString(),
                "--ek-ca", layout.caCert().toString(),
                "--master-secret", layout.masterSecret().toString(),
                "--cluster-record", layout.clusterRecord().toString(),
                "--init-secret", layout.initSecret().toString(),
                "--kubeconfig-out", layout.kubeconfig().toString(),
                "--journal-out", layout.initJournal().toString(),
                "--cluster-name", "sextant-mini",
                "--control-planes", Integer.toString(controlPlanes));
        progress.accept(name + ": sextant init " + String.join(" ", args));
        OperatorInit.Outcome outcome = init.run(args, line -> progress.accept("init| " + line));
        if (outcome.exit() != 0) {
            throw new MiniFailure("init of " + name + " failed (sextant init exit " + outcome.exit() + "); node journal"
                    + " (if the node sent one): " + layout.initJournal() + "; console log: " + node.consoleLog());
        }
        return outcome.initialized().orElseThrow(() -> new MiniFailure("init of " + name
                + " succeeded but returned no cluster ID; console log: " + node.consoleLog()));
    }
}
