package dev.sextant.joinapi.kube;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.util.ClientBuilder;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;

/**
 * The client-java API client. In a pod: the in-cluster service account. With
 * {@code sextant.join.kubernetes.base-path}: that URL without credentials (tests point it at the
 * Kubernetes API test double). Short timeouts: a hung API server must become UNAVAILABLE for the
 * joining node (which retries), not a stuck call.
 */
@Factory
@Requires(property = JoinServiceConfig.KUBERNETES_ENABLED, notEquals = "false")
class KubernetesClientFactory {
    /**
     * Idle API connections kept for reuse. An API server speaking HTTP/2 multiplexes every call on one
     * connection; over HTTP/1.1 (a proxy or API server without h2, the benchmark's double) each
     * concurrent call holds its own, and okhttp's default of 5 idle meant that 256 joiners made the
     * service close and open about 0.7 connections per ticket (a TLS handshake each against a real
     * server). Idle ones close after 5 minutes, so a burst's connections do not outlive it long.
     */
    private static final int IDLE_CONNECTIONS = 256;

    @Singleton
    CoreV1Api coreV1Api(JoinServiceConfig config) {
        Optional<String> basePath = config.kubernetes().basePath();
        Duration timeout = config.kubernetes().timeout();
        try {
            ClientBuilder builder = basePath.filter(p -> !p.isBlank()).isPresent()
                    ? new ClientBuilder().setBasePath(basePath.get())
                    : ClientBuilder.cluster();
            ApiClient client = builder.setReadTimeout(timeout).build();
            client.setHttpClient(client.getHttpClient().newBuilder()
                    .connectionPool(new ConnectionPool(IDLE_CONNECTIONS, 5, TimeUnit.MINUTES)).build());
            client.setConnectTimeout((int) timeout.toMillis());
            client.setWriteTimeout((int) timeout.toMillis());
            return new CoreV1Api(client);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot configure the Kubernetes client: " + e.getMessage(), e);
        }
    }
}
