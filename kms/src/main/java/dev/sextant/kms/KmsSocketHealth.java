package dev.sextant.kms;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.endpoint.health.HealthEndpoint;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import java.util.Map;
import org.reactivestreams.Publisher;

/** /health's "grpc-server": UP while the KMS serves on its socket (the kubelet probes the management port). */
@Singleton
@Requires(beans = HealthEndpoint.class)
public class KmsSocketHealth implements HealthIndicator {
    private final KmsSocketServer server;

    public KmsSocketHealth(KmsSocketServer server) {
        this.server = server;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        return Publishers.just(HealthResult.builder("grpc-server", server.isServing() ? HealthStatus.UP : HealthStatus.DOWN)
                .details(Map.of("socket", server.socket().toString())).build());
    }
}
