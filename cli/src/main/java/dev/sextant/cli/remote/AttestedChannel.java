package dev.sextant.cli.remote;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;

import javax.net.ssl.SSLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A gRPC channel to a node over attested TLS that remembers what the handshake concluded, because
 * gRPC reports a rejected node only as UNAVAILABLE: the rejection (reason and sentence) is what the
 * operator needs to see, or the verified state when the node passed.
 */
public final class AttestedChannel implements AutoCloseable {
    private final ManagedChannel channel;
    private final AtomicReference<AttestationRejected> rejection = new AtomicReference<>();
    private final AtomicReference<AttestedState> verified = new AtomicReference<>();
    /** ClientHello.random of the connection whose server passed: the nonce its quote was verified over. */
    private final AtomicReference<byte[]> clientRandom = new AtomicReference<>();

    public AttestedChannel(NodeEndpoint endpoint, AttestationVerifier verifier) throws SSLException {
        AttestationVerifier recording = (document, purpose, nonce, userData) -> record(verifier, document, purpose, nonce, userData);
        this.channel = NettyChannelBuilder.forAddress(endpoint.host(), endpoint.port())
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(recording))).build();
    }

    private AttestedState record(AttestationVerifier verifier, byte[] document, Purpose purpose, byte[] nonce, byte[] userData)
            throws AttestationRejected {
        try {
            AttestedState state = verifier.verify(document, purpose, nonce, userData);
            verified.set(state);
            clientRandom.set(nonce.clone());
            return state;
        } catch (AttestationRejected e) {
            rejection.set(e);
            throw e;
        }
    }

    public ManagedChannel channel() { return channel; }

    /** Why the node was refused in the handshake, if it was. */
    public Optional<AttestationRejected> rejection() { return Optional.ofNullable(rejection.get()); }

    /**
     * The client's TLS random of the connection whose server passed verification (the nonce the server
     * quoted over): what the operator's proof binds a call to. Empty before a handshake succeeded.
     */
    public Optional<byte[]> clientRandom() { return Optional.ofNullable(clientRandom.get()).map(byte[]::clone); }

    /** What the node proved in the handshake, once it did. */
    public Optional<AttestedState> verified() { return Optional.ofNullable(verified.get()); }

    @Override
    public void close() {
        channel.shutdownNow();
    }
}
