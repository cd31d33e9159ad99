package dev.sextant.atls;

import io.netty.handler.ssl.DelegatingSslContext;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.internal.tcnative.SSL;

import javax.net.ssl.SSLEngine;

/**
 * Forbids session tickets on every engine: BoringSSL resumes TLS 1.3 only through tickets, and a
 * resumed session would skip minting and verification while the session still reports the first
 * connection's state (verified in atls-probe.md §4).
 */
final class NoResumptionSslContext extends DelegatingSslContext {
    NoResumptionSslContext(SslContext base) {
        super(base);
    }

    @Override
    protected void initEngine(SSLEngine engine) {
        if (!(engine instanceof ReferenceCountedOpenSslEngine)) {
            throw new IllegalStateException("aTLS needs the OPENSSL provider, got " + engine.getClass().getName());
        }
        long ssl = ((ReferenceCountedOpenSslEngine) engine).sslPointer();
        SSL.setOptions(ssl, SSL.SSL_OP_NO_TICKET);
    }
}
