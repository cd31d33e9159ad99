package dev.sextant.cli.operator;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.proto.v1.ClusterStatusRequest;
import dev.sextant.proto.v1.NodeAttestationStatus;
import dev.sextant.proto.v1.OperatorServiceGrpc;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "status",
        description = {"Ask a control plane's join service how every node fared in re-attestation.",
                "Verifies the join service's quote in the handshake (as 'sextant verify' does), proves the call",
                "with the key derived from the master secret, and prints one line per node: name, role, image",
                "version, last attested (seconds ago), state (attested|unreachable|revoked), reason."},
        footer = {"  sextant cluster status --endpoint 192.0.2.10:9090 \\",
                "      --master-secret sextant-mastersecret.json \\",
                "      --measurements out/image/measurements.json --ek-ca ca/ca-cert.pem"},
        exitCodeList = {ExitCodes.DONE_ROW, ExitCodes.REJECTED_ROW, ExitCodes.FAILED_ROW})
public final class ClusterStatusCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    OperatorOptions options;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (OperatorConnection connection = options.connection()) {
            OperatorCall operator = new OperatorCall(connection, options.endpoint(), options.timeout());
            if (!operator.connect(out)) {
                return ExitCodes.REJECTED;
            }
            lines(nodes(operator)).forEach(out::println);
            return ExitCodes.OK;
        }
    }

    /** Every node's state, asked with the operator's proof ({@code operator} connected: the join service verified). */
    public static List<NodeAttestationStatus> nodes(OperatorCall operator) {
        return operator.call(OperatorServiceGrpc.getClusterStatusMethod(), ClusterStatusRequest.getDefaultInstance(),
                (unsigned, proof) -> unsigned.toBuilder().setProof(proof).build(), Set.of()).getNodesList();
    }

    /** One line per node, columns aligned: name, role, image version, last attested, state, reason. */
    static List<String> lines(List<NodeAttestationStatus> nodes) {
        int name = nodes.stream().mapToInt(n -> n.getName().length()).max().orElse(0);
        int image = nodes.stream().mapToInt(n -> image(n).length()).max().orElse(1);
        return nodes.stream().map(n -> String.format("%-" + name + "s  %-13s  %-" + image + "s  %-10s  %-11s  %s",
                n.getName(), n.getRole(), image(n), lastAttested(n), n.getState(), n.getReason()).stripTrailing()).toList();
    }

    private static String image(NodeAttestationStatus n) {
        return n.getImageVersion().isEmpty() ? "-" : n.getImageVersion();
    }

    private static String lastAttested(NodeAttestationStatus n) {
        return n.getSecondsSinceLastSuccess() < 0 ? "never" : n.getSecondsSinceLastSuccess() + "s ago";
    }
}
