package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.Reason;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/** What an aTLS server asks of its clients. */
public sealed interface ClientVerification permits ClientVerification.Required, ClientVerification.IfPresented,
        ClientVerification.Anonymous {
    /**
     * Every client must present a certificate whose attestation {@code verifier} accepts, inside
     * the handshake: a client that fails never reaches a method, and the verified state is what
     * {@link PeerAttestation} hands the service.
     */
    static ClientVerification by(AttestationVerifier verifier) {
        return new Required(verifier, Set.of());
    }

    /**
     * As {@link #by}, except that a client whose quote checked out (a trusted AK, a valid signature, fresh, its
     * PCRs those it reports) but whose image the policy refuses for one of {@code toldInCall} completes the
     * handshake <em>without</em> an attested state, and every call it makes is closed PERMISSION_DENIED with
     * the rejection's line ({@link AtlsServerInterceptor}): a node on a retired image (and its operator, in
     * its log) reads which image was retired, where a failed handshake tells it nothing. Such a caller reaches
     * no method. Only {@link #TELLABLE} reasons may be told: what fails before the quote checks out still
     * fails the handshake.
     */
    static ClientVerification telling(AttestationVerifier verifier, Set<Reason> toldInCall) {
        return new Required(verifier, toldInCall);
    }

    /** The reasons decided after the quote itself checked out: the policy's verdict on a genuine node's image. */
    Set<Reason> TELLABLE = EnumSet.of(Reason.IMAGE_RETIRED);

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
     * A client may present a certificate or none: one it presents is checked as {@code presented} (a
     * {@link #by} or {@link #telling}) asks, inside the handshake, so a failing one never reaches a method;
     * one that presents none reaches the server unattested. For a port that serves attested machines and,
     * beside them, a service that asks nothing of its caller (the join service's port: nodes join, the
     * operator publishes a set whose signature is its authorisation); {@link AtlsServerInterceptor} then
     * names the services open to unattested callers and refuses every other call without an attestation.
     */
    static ClientVerification ifPresented(ClientVerification presented) {
        if (!(presented instanceof Required required)) {
            throw new IllegalArgumentException("ifPresented takes what a presented certificate must pass (by, telling)");
        }
        return new IfPresented(required);
    }

    record IfPresented(Required presented) implements ClientVerification {
        public IfPresented {
            Objects.requireNonNull(presented, "presented");
        }
    }

    record Required(AttestationVerifier verifier, Set<Reason> toldInCall) implements ClientVerification {
        public Required {
            Objects.requireNonNull(verifier, "verifier (use ClientVerification.anonymous() for a server-attested service)");
            toldInCall = Set.copyOf(toldInCall);
            if (!TELLABLE.containsAll(toldInCall)) {
                throw new IllegalArgumentException("only " + TELLABLE + " may be told in the call, not " + toldInCall);
            }
        }
    }

    record Anonymous() implements ClientVerification {
    }
}
