package dev.sextant.cli.operator;

import com.google.protobuf.ByteString;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.remote.ConnectionFailures;
import dev.sextant.proto.v1.OperatorServiceGrpc;
import dev.sextant.proto.v1.RevokeRequest;
import dev.sextant.proto.v1.RevokeResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
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
            if (!connection.connect(options.timeout())) {
                out.println(Rejections.line(connection.rejection().orElseThrow()));
                return ExitCodes.REJECTED;
            }
            RevokeRequest unsigned = RevokeRequest.newBuilder().setNode(node).build();
            RevokeRequest request = unsigned.toBuilder().setProof(ByteString.copyFrom(connection.prove(
                    OperatorServiceGrpc.getRevokeMethod().getFullMethodName(), unsigned.toByteArray()))).build();
            RevokeResponse revoked;
            try {
                revoked = OperatorServiceGrpc.newBlockingStub(connection.channel())
                        .withDeadlineAfter(options.timeout().toMillis(), TimeUnit.MILLISECONDS).revoke(request);
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() == Status.Code.NOT_FOUND || e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
                    throw new CliFailure(String.valueOf(e.getStatus().getDescription()), e);
                }
                throw ConnectionFailures.describe(options.endpoint(), e, options.timeout());
            }
            out.println(revoked.getAlreadyRevoked()
                    ? "node " + revoked.getNode() + " was revoked already, at " + revoked.getRevokedAt() + ": " + revoked.getReason()
                    : "revoked node " + revoked.getNode() + " at " + revoked.getRevokedAt() + " (" + revoked.getReason() + ")");
            return ExitCodes.OK;
        }
    }
}
