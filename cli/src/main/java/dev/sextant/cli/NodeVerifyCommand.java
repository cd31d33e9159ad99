package dev.sextant.cli;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Connect to a node over attested TLS and verify its TPM quote in the handshake.",
                "Prints the verified PCR values and exits 0, or one line 'REJECTED: <reason>' and exits 1."})
public final class NodeVerifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", required = true, description = "HOST:PORT of the node's gRPC port")
    String endpoint;

    @Option(names = "--timeout", description = "seconds to wait for the node (default: ${DEFAULT-VALUE})")
    long timeoutSeconds = 30;

    @Mixin
    VerifierOptions options;

    @Override
    public Integer call() throws Exception {
        AttestationVerifier verifier = options.verifier();
        var verified = new AtomicReference<AttestedState>();
        var rejected = new AtomicReference<AttestationRejected>();
        AttestationVerifier recording = (document, nonce, userData) -> {
            try {
                AttestedState state = verifier.verify(document, nonce, userData);
                verified.set(state);
                return state;
            } catch (AttestationRejected e) {
                rejected.set(e);
                throw e;
            }
        };
        int colon = endpoint.lastIndexOf(':');
        ManagedChannel channel = NettyChannelBuilder
                .forAddress(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)))
                .sslContext(AtlsContexts.client(null, recording)).build();
        PrintWriter out = spec.commandLine().getOut();
        try {
            byte[] nonce = new byte[32];
            new SecureRandom().nextBytes(nonce);
            // Any call makes the handshake, which is where the node's quote is verified.
            VerifyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeoutSeconds, TimeUnit.SECONDS)
                    .getAttestation(GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(nonce)).build());
        } catch (StatusRuntimeException e) {
            if (rejected.get() != null) {
                out.println("REJECTED: " + String.join("; ", rejected.get().toString().lines().toList()));
                return 1;
            }
            throw new IllegalStateException("cannot reach " + endpoint + ": " + e.getStatus(), e);
        } finally {
            channel.shutdownNow();
        }
        AttestedState state = verified.get();
        state.pcrs().forEach((pcr, value) -> out.printf("PCR %2d  %s%n", pcr, HexFormat.of().formatHex(value)));
        state.warnings().forEach(w -> spec.commandLine().getErr().println("warning: " + w));
        return 0;
    }
}
