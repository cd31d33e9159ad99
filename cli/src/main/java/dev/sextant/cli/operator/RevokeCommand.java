package dev.sextant.cli.operator;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.proto.v1.OperatorServiceGrpc;
import dev.sextant.proto.v1.RevokeRequest;
import dev.sextant.proto.v1.RevokeResponse;
import io.grpc.Status;
import java.io.PrintWriter;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "revoke",
        description = {"Revoke a node: its machine (its TPM's attestation key) gets no join or rejoin ticket again.",
                "Final: the machine may come back only as a new machine. Verifies the join service as",
                "'sextant verify' does and proves the call with the key derived from the master secret."},
        footer = {"  sextant revoke worker-0 --endpoint 192.0.2.10:9090 \\",
                "      --master-secret sextant-mastersecret.json \\",
                "      --measurements out/image/measurements.json --ek-ca ca/ca-cert.pem"},
        exitCodeList = {ExitCodes.DONE_ROW, ExitCodes.REJECTED_ROW, ExitCodes.FAILED_ROW})
public final class RevokeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NODE", description = "the node name to revoke")
    String node;

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
            // An unknown node or a bad name is the service's answer to the operator, told as it is.
            RevokeResponse revoked = operator.call(OperatorServiceGrpc.getRevokeMethod(),
                    RevokeRequest.newBuilder().setNode(node).build(),
                    (unsigned, proof) -> unsigned.toBuilder().setProof(proof).build(),
                    Set.of(Status.Code.NOT_FOUND, Status.Code.INVALID_ARGUMENT));
            out.println(revoked.getAlreadyRevoked()
                    ? "node " + revoked.getNode() + " was revoked already, at " + revoked.getRevokedAt() + ": " + revoked.getReason()
                    : "revoked node " + revoked.getNode() + " at " + revoked.getRevokedAt() + " (" + revoked.getReason() + ")");
            return ExitCodes.OK;
        }
    }
}
