package dev.sextant.joinapi.identity;

import dev.sextant.atls.AtlsServerInterceptor;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ServerInterceptor;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * The interceptor that copies the verified peer state into the gRPC Context. Attestation required:
 * a call on a connection without one (plain TLS through a misconfiguration) is refused before the
 * method runs; the handshake is the real gate, this is the second lock.
 */
@Factory
@Requires(property = JoinServiceConfig.ATLS_ENABLED, value = "true", defaultValue = "true")
class AtlsInterceptorFactory {

    @Singleton
    ServerInterceptor atlsInterceptor() {
        return new AtlsServerInterceptor(true);
    }
}
