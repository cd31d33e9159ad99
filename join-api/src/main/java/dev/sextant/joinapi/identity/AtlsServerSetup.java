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
import dev.sextant.keys.role.JoinServiceRoleKey;
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
 * Puts the gRPC server behind client-attested aTLS: a client that presents a certificate must present
 * a quote that the reloading verifier accepts, inside the handshake, so mis-measured callers never
 * reach a method; a node whose genuine quote matches an image the set retired completes the handshake
 * unattested and has every call refused PERMISSION_DENIED naming the retired image. A client may present
 * none (the operator, who has no TPM, proves itself in each call): the attestation interceptor then
 * refuses it every JoinService call, UNAUTHENTICATED. When an {@link Attester} bean exists (a TPM on this control-plane node) the
 * server attests itself too and the channel is mutually attested; where it also holds the master secret,
 * its certificate carries a proof of the cluster's join service role key bound to the handshake
 * ({@link JoinServiceRoleProver}), which rejoining nodes demand.
 */
@Singleton
@Requires(property = JoinServiceConfig.ATLS_ENABLED, value = "true", defaultValue = "true")
public class AtlsServerSetup implements BeanCreatedEventListener<ServerBuilder<?>> {

    private static final Logger LOG = LoggerFactory.getLogger(AtlsServerSetup.class);
    private final ReloadingVerifier verifier;
    private final Optional<Attester> serverAttester;
    private final Ecdsa ecdsa;
    private final JoinServiceRole role;

    public AtlsServerSetup(ReloadingVerifier verifier, Optional<Attester> serverAttester, Ecdsa ecdsa,
                           JoinServiceRole role) {
        this.verifier = verifier;
        this.serverAttester = serverAttester;
        this.ecdsa = ecdsa;
        this.role = role;
    }

    @Override
    public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
        ServerBuilder<?> builder = event.getBean();
        if (!(builder instanceof NettyServerBuilder netty)) {
            throw new IllegalStateException("aTLS needs the Netty gRPC transport, got " + builder.getClass().getName());
        }
        try {
            // Flood limits: every handshake costs a quote (mutual) and a verification, before the caller proved anything.
            OwnAttestation own = serverAttester.map(this::attestation).orElse(OwnAttestation.none());
            // A client may come without a certificate (the operator); one with a certificate is verified in the
            // handshake, and a genuine node on a retired image is told which (PERMISSION_DENIED in its call).
            ClientVerification clients = ClientVerification.ifPresented(verifier, Set.of(Reason.IMAGE_RETIRED));
            AtlsServers.secure(netty, AtlsContexts.server(own, clients, ecdsa), HandshakeLimits.defaults());
            ConnectionLimits.defaults().applyTo(netty);
        } catch (SSLException e) {
            throw new IllegalStateException("cannot build the aTLS server context: " + e.getMessage(), e);
        }
        LOG.info("gRPC server uses {} aTLS", serverAttester.isPresent() ? "mutually attested" : "client-attested");
        return builder;
    }

    /**
     * The server's quote, and, where this service holds the master secret (a control plane's), its
     * proof of the cluster's join service role key in every handshake, which rejoining nodes demand.
     */
    private OwnAttestation attestation(Attester attester) {
        Optional<JoinServiceRoleKey> key = role.key();
        if (key.isEmpty()) {
            LOG.warn("This join service holds no master secret ({}): it proves no control-plane role, and a node whose"
                    + " TPM record names the cluster's role key does not rejoin through it", JoinServiceConfig.MASTER_SECRET_FILE);
            return OwnAttestation.by(attester);
        }
        return OwnAttestation.proving(attester, new JoinServiceRoleProver(key.get()));
    }
}
