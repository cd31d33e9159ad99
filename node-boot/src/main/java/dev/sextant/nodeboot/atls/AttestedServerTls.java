package dev.sextant.nodeboot.atls;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.attestation.issue.Attester;
import io.grpc.ServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;

import javax.net.ssl.SSLException;
import java.io.UncheckedIOException;

/**
 * Serves the node's gRPC port over server-attested TLS: every handshake presents a fresh
 * certificate carrying a TPM quote over the caller's ClientHello.random. The node verifies no
 * client: init callers authenticate with the init secret, verify callers need nothing.
 */
@Singleton
final class AttestedServerTls implements BeanCreatedEventListener<ServerBuilder<?>> {
    private final Attester attester;

    AttestedServerTls(Attester attester) {
        this.attester = attester;
    }

    @Override
    public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
        ServerBuilder<?> builder = event.getBean();
        if (!(builder instanceof NettyServerBuilder netty)) {
            throw new IllegalStateException("aTLS needs grpc-netty's server, got " + builder.getClass().getName());
        }
        try {
            netty.sslContext(AtlsContexts.server(attester, null));
        } catch (SSLException e) {
            throw new UncheckedIOException("building the aTLS server context", e);
        }
        return builder;
    }
}
