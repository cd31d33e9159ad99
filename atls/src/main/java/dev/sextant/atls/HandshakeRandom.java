package dev.sextant.atls;

import io.grpc.Context;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * The client's TLS random (ClientHello.random) of a server-side connection, for a call that binds a
 * proof to this handshake (the operator's proof, docs/re-attestation.md): a proof over it passes on
 * no other connection. The server's key manager records it in the TLS session while it mints the
 * server's certificate (written during the handshake by the server itself, never by the peer);
 * {@link AtlsServerInterceptor} puts it in the gRPC {@link Context}.
 */
public final class HandshakeRandom {
    private static final String SESSION_KEY = "dev.sextant.atls.client-random";
    static final Context.Key<byte[]> CONTEXT_KEY = Context.key("sextant-client-random");

    private HandshakeRandom() {}

    /** The client's TLS random of the current call's connection, inside a call intercepted by {@link AtlsServerInterceptor}. */
    public static Optional<byte[]> currentClient() {
        return Optional.ofNullable(CONTEXT_KEY.get()).map(byte[]::clone);
    }

    /** The client's TLS random the server recorded in {@code session}; empty on a session of another server. */
    public static Optional<byte[]> client(SSLSession session) {
        Object value = session == null ? null : session.getValue(SESSION_KEY);
        return value instanceof byte[] random && random.length == TlsRandoms.LENGTH ? Optional.of(random.clone()) : Optional.empty();
    }

    /** Records the client's random in the session being negotiated on {@code engine} (the server side). */
    static void recordClient(SSLEngine engine, byte[] random) {
        SSLSession session = engine.getHandshakeSession();
        if (session != null) {
            session.putValue(SESSION_KEY, random.clone());
        }
    }
}
