package dev.sextant.clusterservices;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * TEST DOUBLE of the Kubernetes API (design decision 9, as join-api's): fabric8's mock server in
 * CRUD mode, a plain HTTP server speaking the real REST protocol to the production client-java
 * code. It counts writes (to prove an apply changed nothing) and can be told to refuse chosen
 * requests. It runs no controllers: tests set DaemonSet status themselves.
 */
public final class KubeApiDouble implements AutoCloseable {
    private final AtomicReference<Predicate<RecordedRequest>> failing = new AtomicReference<>(r -> false);
    private final AtomicInteger writes = new AtomicInteger();
    private final KubernetesMockServer server;

    public KubeApiDouble() {
        KubernetesCrudDispatcher dispatcher = new KubernetesCrudDispatcher(List.of()) {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                if (failing.get().test(request)) {
                    return new MockResponse().setResponseCode(500)
                            .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"code\":500,\"message\":\"refused by the test\"}");
                }
                if (!request.getMethod().equalsIgnoreCase("GET")) {
                    writes.incrementAndGet();
                }
                return super.dispatch(request);
            }
        };
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
    }

    public String url() {
        return "http://localhost:" + server.getPort();
    }

    /** A client as an operator (or the node bootstrapper) would have. */
    public ApiClient client() {
        return new ClientBuilder().setBasePath(url()).build();
    }

    /** A kubeconfig naming this server, for the CLI. */
    public Path kubeconfig(Path dir) throws IOException {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: double
                    cluster:
                      server: %s
                contexts:
                  - name: double
                    context:
                      cluster: double
                      user: operator
                current-context: double
                users:
                  - name: operator
                    user: {}
                """.formatted(url()));
    }

    /** Requests other than GET so far. */
    public int writes() {
        return writes.get();
    }

    /** Answer 500 to requests with this method whose path starts with the prefix, until {@link #heal()}. */
    public void failWhen(String method, String pathPrefix) {
        failing.set(r -> r.getMethod().equalsIgnoreCase(method) && r.getPath().startsWith(pathPrefix));
    }

    public void heal() {
        failing.set(r -> false);
    }

    @Override
    public void close() {
        server.destroy();
    }
}
