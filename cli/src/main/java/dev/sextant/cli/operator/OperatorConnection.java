package dev.sextant.cli.operator;

import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.remote.AttestedChannel;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.keys.operator.OperatorCredential;
import dev.sextant.keys.operator.OperatorProof;
import dev.sextant.attestation.verify.AttestationRejected;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * The operator's connection to a join service: aTLS that verifies the join service's quote as
 * {@code sextant verify} does and presents no certificate, and the operator's proofs bound to this
 * connection's client TLS random. The handshake is made first, before any request is signed: the proof
 * names the random of the connection it travels on, so it passes there and nowhere else.
 */
public final class OperatorConnection implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(20);

    private final NodeEndpoint endpoint;
    private final AttestedChannel channel;
    private final OperatorCredential credential;

    public OperatorConnection(NodeEndpoint endpoint, AttestationVerifier verifier, OperatorCredential credential) throws SSLException {
        this.endpoint = endpoint;
        this.channel = new AttestedChannel(endpoint, verifier);
        this.credential = credential;
    }

    public ManagedChannel channel() {
        return channel.channel();
    }

    /** Why the join service was refused in the handshake, if it was. */
    public Optional<AttestationRejected> rejection() {
        return channel.rejection();
    }

    /**
     * Makes the handshake (verifying the join service) within {@code timeout}; false when the join service
     * was rejected (see {@link #rejection()}). Any other failure to connect is a {@link CliFailure}.
     */
    public boolean connect(Duration timeout) throws InterruptedException {
        ManagedChannel managed = channel.channel();
        Instant deadline = Instant.now().plus(timeout);
        ConnectivityState state = managed.getState(true);
        while (state != ConnectivityState.READY) {
            if (channel.rejection().isPresent()) {
                return false;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new CliFailure("no attested connection to " + endpoint + " within " + timeout.toSeconds()
                        + " s: is the join service up and reachable at --endpoint? (wait longer with --timeout SECONDS)");
            }
            if (state == ConnectivityState.TRANSIENT_FAILURE || state == ConnectivityState.IDLE) {
                managed.getState(true); // ask again: the channel backs off between attempts
            }
            Thread.sleep(POLL.toMillis());
            state = managed.getState(false);
        }
        return true;
    }

    /** The operator's proof of {@code method} with {@code requestWithoutProof} on this connection. */
    public byte[] prove(String method, byte[] requestWithoutProof) {
        byte[] random = channel.clientRandom().orElseThrow(() ->
                new IllegalStateException("no verified handshake yet: connect before proving"));
        OperatorProof proof = credential.prove(method, requestWithoutProof, random);
        return proof.signature();
    }

    @Override
    public void close() {
        channel.close();
    }
}
