package dev.sextant.nodeboot.verify;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.AtlsServers;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.HandshakeLimits;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.grpcsupport.ConnectionLimits;
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
 *
 * <p>Anyone may connect before proving anything, and each handshake costs the node a TPM quote,
 * so the handshake work runs under {@link HandshakeLimits} (bounded, off the event loop, a cap per
 * source address), a connection holds only so many calls and closes when idle or old
 * ({@link ConnectionLimits}), and an inbound message is bounded: the largest honest one, an
 * InitRequest with its measurements and EK CA bundle, is a few KiB.
 */
@Singleton
final class AttestedServerTls implements BeanCreatedEventListener<ServerBuilder<?>> {
    static final int MAX_INBOUND_MESSAGE_BYTES = 256 * 1024;

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
            AtlsServers.secure(netty, AtlsContexts.server(OwnAttestation.by(attester), ClientVerification.anonymous()),
                            HandshakeLimits.defaults())
                    .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES);
            ConnectionLimits.defaults().applyTo(netty);
        } catch (SSLException e) {
            throw new UncheckedIOException("building the aTLS server context", e);
        }
        return builder;
    }
}
