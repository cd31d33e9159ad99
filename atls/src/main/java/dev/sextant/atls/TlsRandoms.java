package dev.sextant.atls;

import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.internal.tcnative.SSL;

import javax.net.ssl.SSLEngine;
import java.util.Optional;

/**
 * Reads the handshake randoms of a BoringSSL engine: they are the aTLS nonces. Only the OPENSSL
 * provider exposes them (the JDK provider has no API), which is why both ends must use it.
 */
final class TlsRandoms {
    static final int LENGTH = 32;

    private TlsRandoms() {}

    /** ClientHello.random: the nonce the client chose, so the client verifies the server with it. */
    static Optional<byte[]> client(SSLEngine engine) {
        return read(engine, true);
    }

    /** ServerHello.random: the nonce the server chose, so the server verifies the client with it. */
    static Optional<byte[]> server(SSLEngine engine) {
        return read(engine, false);
    }

    private static Optional<byte[]> read(SSLEngine engine, boolean client) {
        if (!(engine instanceof ReferenceCountedOpenSslEngine)) {
            return Optional.empty();
        }
        long ssl = ((ReferenceCountedOpenSslEngine) engine).sslPointer();
        if (ssl == 0) {
            return Optional.empty(); // engine already freed: the connection is gone
        }
        byte[] random = client ? SSL.getClientRandom(ssl) : SSL.getServerRandom(ssl);
        return random != null && random.length == LENGTH ? Optional.of(random) : Optional.empty();
    }
}
