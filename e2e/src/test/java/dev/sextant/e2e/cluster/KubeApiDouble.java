package dev.sextant.e2e.cluster;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;

/**
 * TEST DOUBLE of the Kubernetes API (no cluster exists on this machine): fabric8's mock server in
 * CRUD mode, a plain HTTP server speaking the real REST protocol to the join service's client-java.
 * The test reads it back over plain REST, as kubectl would.
 */
final class KubeApiDouble implements AutoCloseable {
    private final KubernetesMockServer server =
            new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(List.of()), false);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    KubeApiDouble() {
        server.init(java.net.InetAddress.getLoopbackAddress(), 0);
    }

    String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /** The JSON list of kube-system Secrets. */
    String secrets() throws IOException, InterruptedException {
        return get("/api/v1/namespaces/kube-system/secrets");
    }

    /** The JSON list of kube-system DaemonSets (what init applied; nothing runs them here). */
    String daemonSets() throws IOException, InterruptedException {
        return get("/apis/apps/v1/namespaces/kube-system/daemonsets");
    }

    /** An admin kubeconfig naming this server, as k3s writes one after "server". */
    String kubeconfig() {
        return "apiVersion: v1\nkind: Config\nclusters:\n- name: double\n  cluster: {server: \"" + url() + "\"}\n"
                + "contexts:\n- name: double\n  context: {cluster: double, user: admin}\ncurrent-context: double\n"
                + "users:\n- name: admin\n  user: {}\n";
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url() + path)).timeout(Duration.ofSeconds(10))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + " from the Kubernetes API double: HTTP " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    @Override
    public void close() {
        server.destroy();
    }
}
