package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestationVerifier;

import java.util.Objects;

/**
 * What an aTLS client demands of the server, in the handshake, before it sends anything. Modeled
 * on grpc-java's {@code AdvancedTlsX509TrustManager.Verification}: the mode that checks nothing is
 * spelled out as insecure at every call site and says so in the log at every handshake.
 */
public sealed interface ServerVerification {
    /** The server's attestation must pass {@code verifier}; a server that fails is refused in the handshake. */
    static ServerVerification by(AttestationVerifier verifier) {
        return new Verified(verifier, HandshakeProofCheck.NONE);
    }

    /**
     * As {@link #by}, and the server's {@link HandshakeProof} must pass {@code proof} for this handshake
     * (a rejoining node: the join service's control-plane role), also inside the handshake.
     */
    static ServerVerification by(AttestationVerifier verifier, HandshakeProofCheck proof) {
        return new Verified(verifier, proof);
    }

    /**
     * INSECURE: any server is accepted, attested or not, and the client learns nothing about whom it
     * talks to. Only for tests and probes whose point is the other side; every handshake logs a WARN.
     */
    static ServerVerification insecureAcceptAnyServer() {
        return new InsecureAcceptAnyServer();
    }

    record Verified(AttestationVerifier verifier, HandshakeProofCheck proof) implements ServerVerification {
        public Verified {
            Objects.requireNonNull(verifier, "verifier");
            Objects.requireNonNull(proof, "proof (HandshakeProofCheck.NONE demands none)");
        }
    }

    record InsecureAcceptAnyServer() implements ServerVerification {
    }
}
