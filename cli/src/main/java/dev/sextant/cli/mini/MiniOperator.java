package dev.sextant.cli.mini;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;

/**
 * The operator's arguments for the mini cluster's join service: the forwarded join port of its first
 * running control plane, and the files mini keeps as the operator would (the master secret, the
 * cluster's signed measurements with PCR 15 marked, its key, the mini EK CA). mini runs the operator's
 * own commands with them, so it revokes and reads the nodes' state exactly as an operator does.
 */
final class MiniOperator {
    private MiniOperator() {
    }

    /** The arguments, or why there are none (no running control plane, a cluster never initialized). */
    static Optional<List<String>> args(MiniLayout layout, MiniState state, StringBuilder whyNot) {
        if (!Files.isRegularFile(layout.masterSecret()) || !Files.isRegularFile(layout.clusterMeasurements())) {
            whyNot.append("the cluster in ").append(layout.dir()).append(" was never initialized");
            return Optional.empty();
        }
        Optional<MiniState.Node> controlPlane = state.nodes().stream()
                .filter(n -> n.role() == NodeRole.CONTROL_PLANE && n.qemu() != null && n.qemu().alive()).findFirst();
        if (controlPlane.isEmpty()) {
            whyNot.append("no control plane runs, so no join service answers");
            return Optional.empty();
        }
        return Optional.of(List.of("--endpoint", "127.0.0.1:" + controlPlane.get().hostPort(NodeRole.JOIN_PORT),
                "--master-secret", layout.masterSecret().toString(),
                "--measurements", layout.clusterMeasurements().toString(),
                "--measurements-key", layout.measurementsPublicKey().toString(),
                "--ek-ca", layout.caCert().toString()));
    }
}
