package dev.sextant.localcluster.verify;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.localcluster.qemu.QemuNode;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Calls a booted node's VerifyService.GetAttestation over attested TLS, as {@code sextant verify}
 * does: the client verifies the node's quote inside the handshake. Until the node's gRPC server is
 * up, QEMU's port forward accepts and drops the connection, so the probe retries until the
 * handshake either verifies or is rejected.
 */
public final class AtlsProbe {
    private static final Duration RETRY = Duration.ofSeconds(2);
    private static final Duration CALL_DEADLINE = Duration.ofSeconds(60);
    private static final int CONSOLE_TAIL_LINES = 40;
    /**
     * How a call ends when the node's process goes away under it: the connection closed (an exit), or
     * the stream reset by a server shutting down.
     */
    private static final Set<Status.Code> GOING_AWAY = Set.of(Status.Code.UNAVAILABLE, Status.Code.CANCELLED);

    private final AttestationVerifier verifier;

    public AtlsProbe(AttestationVerifier verifier) {
        this.verifier = verifier;
    }

    /** What one handshake ended with: the verified state and the response, or the rejection. */
    public record Outcome(Optional<AttestedState> accepted, Optional<GetAttestationResponse> response,
                          Optional<AttestationRejected> rejected) {
    }

    /**
     * Retries until the node answers (verified or rejected) or {@code timeout} passes; the node's
     * QEMU process dying ends the wait early. {@code consoleLog} is named in the timeout message.
     */
    public Outcome await(QemuNode node, int guestPort, byte[] nonce, Duration timeout)
            throws IOException, TimeoutException {
        Instant deadline = Instant.now().plus(timeout);
        Status lastFailure = null;
        while (Instant.now().isBefore(deadline)) {
            if (!node.isRunning()) {
                throw new IOException("QEMU exited before the node answered; see " + node.consoleLog());
            }
            Attempt attempt = attempt(node.hostPort(guestPort), nonce);
            if (attempt.outcome().isPresent()) {
                return attempt.outcome().get();
            }
            lastFailure = attempt.failure();
            sleep(RETRY);
        }
        // A CI run keeps only this message: say how the last call failed and how far the node got.
        throw new TimeoutException("the node's gRPC port (guest " + guestPort + ") did not answer an aTLS call within "
                + timeout + "; the last call ended " + lastFailure + "; see " + node.consoleLog()
                + "; its last lines:\n" + consoleTail(node));
    }

    private static String consoleTail(QemuNode node) {
        try {
            List<String> lines = node.console().lines();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - CONSOLE_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(console unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * One attempt against a node's port forwarded to {@code hostPort} on 127.0.0.1: empty if the
     * node's server is not up yet (QEMU's forward accepts and drops the connection).
     */
    public Optional<Outcome> once(int hostPort, byte[] nonce) throws IOException {
        return attempt(hostPort, nonce).outcome();
    }

    /** An attempt's outcome, or the status of the call that got none. */
    private record Attempt(Optional<Outcome> outcome, Status failure) {
    }

    private Attempt attempt(int hostPort, byte[] nonce) throws IOException {
        var verified = new AtomicReference<AttestedState>();
        var rejected = new AtomicReference<AttestationRejected>();
        var crashed = new AtomicReference<Throwable>();
        AttestationVerifier recording = (document, purpose, n, userData) -> {
            try {
                AttestedState state = verifier.verify(document, purpose, n, userData);
                verified.set(state);
                return state;
            } catch (AttestationRejected e) {
                rejected.set(e);
                throw e;
            } catch (RuntimeException | Error e) {
                // Not "the node is not up yet": retrying would only hide the bug until the timeout.
                crashed.set(e);
                throw e;
            }
        };
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", hostPort)
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(recording))).build();
        try {
            GetAttestationResponse response = VerifyServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .getAttestation(GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(nonce)).build());
            return new Attempt(Optional.of(new Outcome(Optional.ofNullable(verified.get()), Optional.of(response),
                    Optional.empty())), null);
        } catch (StatusRuntimeException e) {
            if (crashed.get() != null) {
                throw new IOException("the verifier failed on the node's document: " + crashed.get(), crashed.get());
            }
            if (rejected.get() != null) {
                return new Attempt(Optional.of(new Outcome(Optional.empty(), Optional.empty(), Optional.of(rejected.get()))),
                        null);
            }
            if (verified.get() != null && !GOING_AWAY.contains(e.getStatus().getCode())) {
                // The handshake verified, but the node answered the call with an error: a node-side bug
                // worth failing on.
                throw new IOException("the node's quote verified but GetAttestation failed: " + e.getStatus(), e);
            }
            // Not up yet, or going away: once bootstrapped, the bootstrapper exits and comes back serving
            // verification only, so a probe can verify the outgoing process and lose the connection to
            // its exit before the call is answered. The next attempt reaches the new one.
            return new Attempt(Optional.empty(), e.getStatus());
        } finally {
            channel.shutdownNow();
        }
    }

    private static void sleep(Duration pause) throws IOException {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the node", e);
        }
    }
}
