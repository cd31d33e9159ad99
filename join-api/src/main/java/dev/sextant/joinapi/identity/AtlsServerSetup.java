package dev.sextant.joinapi.identity;

import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.AtlsServers;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.HandshakeLimits;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.grpcsupport.ConnectionLimits;
import dev.sextant.joinapi.measurements.ReloadingVerifier;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the gRPC server behind client-attested aTLS: a client that presents a quote must present one
 * the reloading verifier accepts, inside the handshake, so a mis-measured caller never reaches a
 * method; a node whose genuine quote matches an image the set retired completes the handshake
 * unattested and has every call refused PERMISSION_DENIED naming the retired image. A client that
 * presents none (the operator publishing a measurement set, MeasurementsService) reaches only the
 * services that ask nothing of their caller: {@link AtlsInterceptorFactory}'s interceptor refuses every
 * other call UNAUTHENTICATED before it runs. When an {@link Attester} bean exists (a TPM on this control-plane node) the
 * server attests itself too and the channel is mutually attested.
 */
@Singleton
@Requires(property = JoinServiceConfig.ATLS_ENABLED, value = "true", defaultValue = "true")
public class AtlsServerSetup implements BeanCreatedEventListener<ServerBuilder<?>> {

    private static final Logger LOG = LoggerFactory.getLogger(AtlsServerSetup.class);
    private final ReloadingVerifier verifier;
    private final Optional<Attester> serverAttester;
    private final Ecdsa ecdsa;

    public AtlsServerSetup(ReloadingVerifier verifier, Optional<Attester> serverAttester, Ecdsa ecdsa) {
        this.verifier = verifier;
        this.serverAttester = serverAttester;
        this.ecdsa = ecdsa;
    }

    @Override
    public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
        ServerBuilder<?> builder = event.getBean();
        if (!(builder instanceof NettyServerBuilder netty)) {
            throw new IllegalStateException("aTLS needs the Netty gRPC transport, got " + builder.getClass().getName());
        }
        try {
            // Flood limits: every handshake costs a quote (mutual) and a verification, before the caller proved anything.
            OwnAttestation own = serverAttester.map(OwnAttestation::by).orElse(OwnAttestation.none());
            // A genuine node on a retired image is told which (PERMISSION_DENIED in its call) rather than hung up on;
            // the operator, who has no TPM, presents no certificate (MeasurementsService only).
            ClientVerification clients = ClientVerification.ifPresented(ClientVerification.telling(verifier, Set.of(Reason.IMAGE_RETIRED)));
            AtlsServers.secure(netty, AtlsContexts.server(own, clients, ecdsa), HandshakeLimits.defaults());
            ConnectionLimits.defaults().applyTo(netty);
        } catch (SSLException e) {
            throw new IllegalStateException("cannot build the aTLS server context: " + e.getMessage(), e);
        }
        LOG.info("gRPC server uses {} aTLS", serverAttester.isPresent() ? "mutually attested" : "client-attested");
        return builder;
    }
}
