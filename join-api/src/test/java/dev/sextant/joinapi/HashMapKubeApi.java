package dev.sextant.joinapi;

import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TEST DOUBLE of the Kubernetes API for the load benchmark and for counting the join service's
 * connections: the create (201/409) and read (200/404) calls the join service makes, on a hash
 * map. The fabric8 CRUD mock matches every request against every stored object (O(objects) per
 * call), which after a few thousand tickets is the whole profile; this double keeps the benchmark
 * measuring the join service instead.
 */
final class HashMapKubeApi implements AutoCloseable {
    private static final String THREAD = "kube-double-";
    private final Map<String, String> objects = new ConcurrentHashMap<>();
    private final AtomicInteger threadCount = new AtomicInteger();
    private final ExecutorService threads =
            Executors.newFixedThreadPool(4, r -> new Thread(r, THREAD + threadCount.incrementAndGet()));
    private final HttpServer server;
    /** Client ports of the requests since {@link #countConnectionsFromNow}: one per connection the client used. */
    private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();

    HashMapKubeApi() throws IOException {
        // TCP_NODELAY on the accepted connections, so they can stay open as the join service's client
        // keeps them (a real API server does too). Without it every kept-alive answer (headers and body
        // written apart) waits for the client's delayed ACK, a floor under every ticket of the bench; closing
        // each connection instead cost a new connection per API call. Read once, when the JDK's server
        // configuration loads: before the first HttpServer of the JVM.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.createContext("/api/v1/namespaces/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        clientPorts.add(exchange.getRemoteAddress().getPort());
        String path = exchange.getRequestURI().getPath();
        try (exchange) {
            if (exchange.getRequestMethod().equals("POST")) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                String name = JsonParser.parseString(body).getAsJsonObject().getAsJsonObject("metadata").get("name").getAsString();
                boolean created = objects.putIfAbsent(path + "/" + name, body) == null;
                reply(exchange, created ? 201 : 409, created ? body : status(409, "AlreadyExists"));
            } else if (exchange.getRequestMethod().equals("GET") && objects.containsKey(path)) {
                reply(exchange, 200, objects.get(path));
            } else {
                reply(exchange, 404, status(404, "NotFound"));
            }
        }
    }

    private static String status(int code, String reason) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
    }

    private static void reply(HttpExchange exchange, int code, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(code, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    /**
     * CPU time its threads have used so far, in nanoseconds: the handlers' and the JDK server's
     * dispatcher's (the only {@code HttpServer} in the benchmark's JVM), so the benchmark can say how
     * much of a ticket's CPU was this stand-in for the API server.
     */
    long cpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(THREAD) || t.getName().equals("HTTP-Dispatcher"))
                .mapToLong(t -> Math.max(0, mx.getThreadCpuTime(t.getId())))
                .sum();
    }

    void countConnectionsFromNow() {
        clientPorts.clear();
    }

    /**
     * Connections the client sent requests on since {@link #countConnectionsFromNow}, as distinct client
     * ports: more than the client's concurrent calls means it closed connections and opened new ones.
     */
    int connectionsCounted() {
        return clientPorts.size();
    }

    /** Forgets every object, as a new cluster's API server would not have them. */
    void clear() {
        objects.clear();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
