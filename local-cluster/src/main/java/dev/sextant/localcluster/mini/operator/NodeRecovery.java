package dev.sextant.localcluster.mini.operator;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.QemuNode;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Recovers a control plane whose state disk waits for its key as the operator does:
 * {@code sextant recover} against its forwarded recovery port with the cluster's own master secret.
 */
public final class NodeRecovery {
    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final OperatorCommand recover;

    public NodeRecovery(MiniLayout layout, Consumer<String> progress, OperatorCommand recover) {
        this.layout = layout;
        this.progress = progress;
        this.recover = recover;
    }

    /** {@code timeout}: how long {@code sextant recover} keeps trying while the node does not answer. */
    public void run(String name, QemuNode node, Duration timeout) throws Exception {
        List<String> args = List.of("--endpoint", "127.0.0.1:" + node.hostPort(NodeRole.RECOVERY_PORT),
                "--master-secret", layout.masterSecret().toString(),
                "--cluster-record", layout.clusterRecord().toString(),
                "--measurements", layout.measurements().toString(),
                "--measurements-key", layout.measurementsPublicKey().toString(),
                "--ek-ca", layout.caCert().toString(),
                "--timeout", Long.toString(timeout.toSeconds()));
        progress.accept(name + ": sextant recover " + String.join(" ", args));
        int exit = recover.run(args, line -> progress.accept("recover| " + line));
        if (exit != 0) {
            throw new MiniFailure("recovery of " + name + " failed (sextant recover exit " + exit + "); console log: "
                    + node.consoleLog());
        }
    }
}
