package dev.sextant.cli.operator;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.remote.ConnectionFailures;
import dev.sextant.proto.v1.ClusterStatusRequest;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.proto.v1.NodeAttestationStatus;
import dev.sextant.proto.v1.OperatorServiceGrpc;
import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
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
            if (!connection.connect(options.timeout())) {
                out.println(Rejections.line(connection.rejection().orElseThrow()));
                return ExitCodes.REJECTED;
            }
            lines(nodes(connection, options.endpoint(), options.timeout())).forEach(out::println);
            return ExitCodes.OK;
        }
    }

    /** Every node's state, asked on {@code connection} (connected: the join service verified) with the operator's proof. */
    public static List<NodeAttestationStatus> nodes(OperatorConnection connection, NodeEndpoint endpoint, Duration timeout) {
        ClusterStatusRequest unsigned = ClusterStatusRequest.getDefaultInstance();
        ClusterStatusRequest request = unsigned.toBuilder().setProof(ByteString.copyFrom(connection.prove(
                OperatorServiceGrpc.getClusterStatusMethod().getFullMethodName(), unsigned.toByteArray()))).build();
        try {
            return OperatorServiceGrpc.newBlockingStub(connection.channel())
                    .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS).clusterStatus(request).getNodesList();
        } catch (StatusRuntimeException e) {
            throw ConnectionFailures.describe(endpoint, e, timeout);
        }
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
