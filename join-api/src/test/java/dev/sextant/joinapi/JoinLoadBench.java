package dev.sextant.joinapi;

import ch.qos.logback.classic.Level;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.netty.handler.ssl.SslContext;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * Load benchmark: N concurrent joiners (16, 64, 256), each joining over its OWN new client-attested
 * aTLS connection (a fresh handshake per ticket, as a booting node does), against the production
 * wiring in this JVM: the Micronaut service with the reloading verifier (EK-CA AK trust, signed
 * measurements), the KMS test double on loopback gRPC and the Kubernetes API test double (fabric8
 * CRUD mock). Client attestations come from software TPMs, so the client side costs one RSA
 * signature. Prints tickets/s, p50/p99 latency and errors per level, and bare aTLS handshakes/s
 * (handshake + a trivial call refused before any KMS or API work) as the baseline.
 *
 * <p>Run: {@code scripts/bench-join.sh [tickets-per-level] [fabric8]}; with {@code fabric8} the
 * Kubernetes API double is the fabric8 CRUD mock (O(objects) per request) instead of a hash map.
 */
public final class JoinLoadBench {
    private static final int ATTESTERS = 8;
    /** Held strongly: java.util.logging forgets levels set on loggers that get garbage-collected. */
    private static final java.util.logging.Logger FABRIC8_LOG = java.util.logging.Logger.getLogger("io.fabric8");

    public static void main(String[] args) throws Exception {
        int perLevel = args.length > 0 ? Integer.parseInt(args[0]) : 1024;
        boolean fabric8 = args.length > 1 && args[1].equals("fabric8");
        // Per-ticket INFO lines (ours, and the fabric8 mock's java.util.logging) would dominate the profile.
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("ROOT")).setLevel(Level.WARN);
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.sextant")).setLevel(Level.WARN);
        FABRIC8_LOG.setLevel(java.util.logging.Level.WARNING);
        try (TestCluster cluster = new TestCluster(); HashMapKubeApi fastApi = new HashMapKubeApi()) {
            AttestedNodes nodes = new AttestedNodes();
            Map<String, Object> props = new HashMap<>(cluster.properties());
            if (!fabric8) {
                props.put("sextant.join.kubernetes.base-path", fastApi.url());
            }
            props.putAll(nodes.configure(cluster.dir));
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            props.put("grpc.server.port", port);
            // Micronaut re-applies logger levels from configuration when the context starts.
            props.put("logger.levels.dev.sextant", "WARN");
            try (ApplicationContext ctx = ApplicationContext.builder().properties(props).start()) {
                ctx.getBean(GrpcEmbeddedServer.class).start();
                List<SslContext> clients = new ArrayList<>();
                for (int i = 0; i < ATTESTERS; i++) {
                    SoftwareTpmAttester a = i == 0 ? nodes.good : new SoftwareTpmAttester(nodes.ekCa, SoftwareTpmOptions.defaults());
                    clients.add(AtlsContexts.client(a, null));
                }
                System.out.printf("join-api load bench: %d CPUs, %d tickets per level, %d client AKs, Kubernetes API double: %s%n",
                        Runtime.getRuntime().availableProcessors(), perLevel, ATTESTERS,
                        fabric8 ? "fabric8 CRUD mock" : "hash map (HashMapKubeApi)");
                run("warm-up", 16, 256, port, clients, true);
                run("aTLS handshakes", 64, perLevel, port, clients, false);
                for (int n : new int[] {16, 64, 256}) {
                    run("tickets", n, perLevel, port, clients, true);
                }
            }
        }
        System.exit(0);
    }

    private static void run(String what, int concurrency, int total, int port, List<SslContext> clients, boolean join)
            throws Exception {
        // Requests (a fresh EC key and CSR each) are made before the clock starts: node-side cost.
        IssueJoinTicketRequest[] requests = new IssueJoinTicketRequest[total];
        for (int i = 0; join && i < total; i++) {
            requests[i] = JoinTicketTest.request(UUID.randomUUID().toString(), "bench-" + UUID.randomUUID().toString().substring(0, 18));
        }
        long[] latencies = new long[total];
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < concurrency; t++) {
            futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    long t0 = System.nanoTime();
                    if (!once(port, clients.get(i % clients.size()), requests[i])) {
                        errors.incrementAndGet();
                    }
                    latencies[i] = System.nanoTime() - t0;
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        Arrays.sort(latencies);
        System.out.printf("%-16s N=%3d: %7.1f /s  p50 %6.1f ms  p99 %6.1f ms  errors %d/%d%n", what, concurrency,
                total / seconds, latencies[total / 2] / 1e6, latencies[(int) (total * 0.99)] / 1e6, errors.get(), total);
    }

    /** One new connection (full aTLS handshake) and one call; true if it answered as expected. */
    private static boolean once(int port, SslContext client, IssueJoinTicketRequest join) throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).sslContext(client).build();
        try {
            JoinServiceGrpc.JoinServiceBlockingStub stub =
                    JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
            if (join != null) {
                stub.issueJoinTicket(join);
                return true;
            }
            try {
                stub.issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid("handshake-only").build());
                return false;
            } catch (StatusRuntimeException e) {
                return e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT;
            }
        } catch (StatusRuntimeException e) {
            return false;
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
