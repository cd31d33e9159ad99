package dev.sextant.joinapi;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.ClientBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * TEST DOUBLE of the Kubernetes API (design decision 9): fabric8's mock server in CRUD mode, a
 * plain HTTP server speaking the real REST protocol to the production client-java code. It can be
 * told to answer 500 to chosen requests, to play an API server in trouble.
 */
public final class KubeApiDouble implements AutoCloseable {
    private final AtomicReference<Predicate<RecordedRequest>> failing = new AtomicReference<>(r -> false);
    private final KubernetesMockServer server;

    public KubeApiDouble() {
        KubernetesCrudDispatcher dispatcher = new KubernetesCrudDispatcher(List.of()) {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                if (failing.get().test(request)) {
                    return new MockResponse().setResponseCode(500).setBody("{\"kind\":\"Status\",\"code\":500}");
                }
                return super.dispatch(request);
            }
        };
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
    }

    String url() {
        return "http://localhost:" + server.getPort();
    }

    /** Answer 500 to requests matching {@code rule} (method and path), until {@link #heal()}. */
    public void failWhen(String method, String pathPrefix) {
        failing.set(r -> r.getMethod().equalsIgnoreCase(method) && r.getPath().startsWith(pathPrefix));
    }

    public void heal() {
        failing.set(r -> false);
    }

    /** A separate client, as an operator (or a restarted service) would have. */
    public CoreV1Api client() {
        return new CoreV1Api(new ClientBuilder().setBasePath(url()).build());
    }

    public List<V1Secret> bootstrapTokens() throws ApiException {
        return client().listNamespacedSecret("kube-system").execute().getItems().stream()
                .filter(s -> "bootstrap.kubernetes.io/token".equals(s.getType())).toList();
    }

    @Override
    public void close() {
        server.destroy();
    }
}
