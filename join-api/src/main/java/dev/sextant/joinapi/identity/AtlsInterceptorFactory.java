package dev.sextant.joinapi.identity;

import dev.sextant.atls.AtlsServerInterceptor;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ServerInterceptor;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import dev.sextant.proto.v1.MeasurementsServiceGrpc;
import java.util.Set;

/**
 * The interceptor that copies the verified peer state into the gRPC Context. Attestation required, except
 * for MeasurementsService (the port takes unattested clients for it, {@link AtlsServerSetup}):
 * a call on a connection without one (plain TLS through a misconfiguration) is refused before the
 * method runs; the handshake is the real gate, this is the second lock.
 */
@Factory
@Requires(property = JoinServiceConfig.ATLS_ENABLED, value = "true", defaultValue = "true")
class AtlsInterceptorFactory {

    @Singleton
    ServerInterceptor atlsInterceptor() {
        // MeasurementsService asks nothing of its caller (the set's signature by the pinned key is the
        // authorisation): the operator's CLI has no TPM. Every other call needs the caller's attestation.
        return new AtlsServerInterceptor(true, Set.of(MeasurementsServiceGrpc.SERVICE_NAME));
    }
}
