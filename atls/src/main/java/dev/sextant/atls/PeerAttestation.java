package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestedState;
import io.grpc.Context;

import javax.net.ssl.SSLSession;
import java.util.Optional;

/**
 * Where a service method finds what the aTLS trust manager verified about its peer. The state
 * travels in the TLS session (written during the handshake by the trust manager, never by the
 * peer) and, on servers with {@link AtlsServerInterceptor}, in the gRPC {@link Context}.
 */
public final class PeerAttestation {
    private static final String SESSION_KEY = "dev.sextant.atls.peer-attestation";
    private static final String REFUSAL_KEY = "dev.sextant.atls.peer-refusal";
    static final Context.Key<AttestedState> CONTEXT_KEY = Context.key("sextant-peer-attestation");

    private PeerAttestation() {}

    /** The verified state of the calling peer, inside a call intercepted by {@link AtlsServerInterceptor}. */
    public static Optional<AttestedState> current() {
        return Optional.ofNullable(CONTEXT_KEY.get());
    }

    /**
     * The verified state of the peer of a TLS session, e.g. on a client from
     * {@code clientCall.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION)}.
     */
    public static Optional<AttestedState> of(SSLSession session) {
        Object value = session == null ? null : session.getValue(SESSION_KEY);
        return value instanceof AttestedState ? Optional.of((AttestedState) value) : Optional.empty();
    }

    static void record(SSLSession session, AttestedState state) {
        session.putValue(SESSION_KEY, state);
    }

    /**
     * Why the peer of a session that completed without an attested state was refused
     * ({@link ClientVerification#telling}): "REASON: sentence", told in every call on it.
     */
    public static Optional<String> refusal(SSLSession session) {
        Object value = session == null ? null : session.getValue(REFUSAL_KEY);
        return value instanceof String s ? Optional.of(s) : Optional.empty();
    }

    static void refuse(SSLSession session, dev.sextant.attestation.verify.AttestationRejected rejected) {
        session.putValue(REFUSAL_KEY, rejected.toString());
    }
}
