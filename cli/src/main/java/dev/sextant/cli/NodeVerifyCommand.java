package dev.sextant.cli;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.input.VerifierOptions;
import dev.sextant.cli.remote.AttestedChannel;
import dev.sextant.cli.remote.ConnectionFailures;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import io.grpc.StatusRuntimeException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

@Command(name = "verify",
        description = {"Connect to a node over attested TLS and verify its TPM quote in the handshake.",
                "Prints the verified PCR values and the version of the image they matched in the measurements,",
                "and exits 0; or one line 'REJECTED: <REASON>: <sentence>' and exits 1."},
        footer = {"  sextant verify --endpoint 192.0.2.10:9000 --measurements \\",
                "      out/image/measurements.json --ek-ca ca/ca-cert.pem"},
        exitCodeList = {ExitCodes.VERIFIED_ROW, ExitCodes.REJECTED_ROW, ExitCodes.FAILED_ROW})
public final class NodeVerifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", required = true, paramLabel = "HOST:PORT", converter = NodeEndpoint.Converter.class,
            description = "the node's gRPC port")
    NodeEndpoint endpoint;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "how long to wait for the node (default: ${DEFAULT-VALUE})")
    long timeoutSeconds = 30;

    @Mixin
    VerifierOptions options;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (AttestedChannel node = new AttestedChannel(endpoint, options.verifier())) {
            byte[] nonce = new byte[32];
            new SecureRandom().nextBytes(nonce);
            try {
                // Any call makes the handshake, which is where the node's quote is verified.
                VerifyServiceGrpc.newBlockingStub(node.channel()).withDeadlineAfter(timeoutSeconds, TimeUnit.SECONDS)
                        .getAttestation(GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(nonce)).build());
            } catch (StatusRuntimeException e) {
                if (node.rejection().isPresent()) {
                    out.println(Rejections.line(node.rejection().get()));
                    return ExitCodes.REJECTED;
                }
                throw ConnectionFailures.describe(endpoint, e, Duration.ofSeconds(timeoutSeconds));
            }
            return printVerified(node.verified().orElseThrow(), out);
        }
    }

    private int printVerified(AttestedState state, PrintWriter out) {
        state.pcrs().forEach((pcr, value) -> out.printf("PCR %2d  %s%n", pcr, HexFormat.of().formatHex(value)));
        out.println("image   " + state.imageVersion());
        state.warnings().forEach(w -> spec.commandLine().getErr().println("warning: " + w));
        return ExitCodes.OK;
    }
}
