package dev.sextant.joinapi.identity;

import dev.sextant.atls.AtlsServerInterceptor;
import dev.sextant.proto.v1.OperatorServiceGrpc;
import java.util.Set;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ServerInterceptor;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import dev.sextant.proto.v1.MeasurementsServiceGrpc;
import java.util.Set;

/**
 * The interceptor that copies the verified peer state and the client's TLS random into the gRPC Context.
 * Attestation required for every service but two: the handshake verifies a client's quote only when the
 * client presents a certificate (the operator, who has no TPM, presents none), so for JoinService this is
 * the lock that refuses an unattested caller, UNAUTHENTICATED, before the method runs. OperatorService's
 * callers prove themselves with the operator's proof in each call; MeasurementsService asks nothing of its
 * caller, the set's signature by the pinned key being the authorisation.
 */
@Factory
@Requires(property = JoinServiceConfig.ATLS_ENABLED, value = "true", defaultValue = "true")
class AtlsInterceptorFactory {

    @Singleton
    ServerInterceptor atlsInterceptor() {
        return new AtlsServerInterceptor(true, Set.of(OperatorServiceGrpc.SERVICE_NAME, MeasurementsServiceGrpc.SERVICE_NAME));
    }
}
