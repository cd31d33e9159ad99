package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestationVerifier;

import java.util.Objects;

/** What an aTLS server asks of its clients. */
public sealed interface ClientVerification permits ClientVerification.Required, ClientVerification.IfPresented,
        ClientVerification.Anonymous {
    /**
     * Every client must present a certificate whose attestation {@code verifier} accepts, inside
     * the handshake: a client that fails never reaches a method, and the verified state is what
     * {@link PeerAttestation} hands the service.
     */
    static ClientVerification by(AttestationVerifier verifier) {
        return new Required(verifier);
    }

    /**
     * No client certificate is asked for: a server-attested service (the node's verify, init and
     * recovery ports), whose callers verify the server and prove themselves, where they must, in
     * the call itself (the init secret, the disk key). {@link AtlsServerInterceptor} with
     * attestation required refuses every call on such a server.
     */
    static ClientVerification anonymous() {
        return new Anonymous();
    }

    /**
     * A client may present a certificate or none: one it presents must pass {@code verifier} inside the
     * handshake (a failing one never reaches a method), one that presents none reaches the server
     * unattested. For a port that serves attested machines and, beside them, a service that asks nothing
     * of its caller (the join service's port: nodes join, the operator publishes a set whose signature is
     * its authorisation); {@link AtlsServerInterceptor} then names the services open to unattested callers
     * and refuses every other call without an attestation.
     */
    static ClientVerification ifPresented(AttestationVerifier verifier) {
        return new IfPresented(verifier);
    }

    record IfPresented(AttestationVerifier verifier) implements ClientVerification {
        public IfPresented {
            Objects.requireNonNull(verifier, "verifier");
        }
    }

    record Required(AttestationVerifier verifier) implements ClientVerification {
        public Required {
            Objects.requireNonNull(verifier, "verifier (use ClientVerification.anonymous() for a server-attested service)");
        }
    }

    record Anonymous() implements ClientVerification {
    }
}
