package dev.sextant.joinapi;

import ch.qos.logback.classic.Level;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * signature. Prints successful tickets/s, p50/p99 latency of the successful ones and failures per
 * level; bare aTLS handshakes/s (handshake + a trivial call refused before any KMS or API work); and
 * the same handshake-and-call over plain mutual TLS (P-256 certificates, no attestation), measured in
 * the same run, with the ratios of tickets/s to it and to the bare aTLS rate (issue 16: tickets at
 * 256 joiners ≥ 0.8 × bare aTLS). One state disk and one node name per AK: each client AK joins
 * with its own fixed disk and name, so all but its first ticket are retried joins (the bindings
 * exist; creating one answers 409 and is read back).
 *
 * <p>Run: {@code scripts/bench-join.sh [tickets-per-level] [fabric8]}; with {@code fabric8} the
 * Kubernetes API double is the fabric8 CRUD mock (O(objects) per request) instead of a hash map.
 * Joiners connect from distinct loopback addresses and retry shed attempts as a node does
 * ({@link #withRetries}); the shed attempts are printed per level.
 */
public final class JoinLoadBench {
    private static final int ATTESTERS = 16;
    /** Distinct loopback source addresses the joiners connect from. */
    private static final int SOURCES = 250;
    /** Attempts per call before it counts as an error (the last backoff ceiling is 30 s). */
    private static final int ATTEMPTS = 8;
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
                props.put(JoinServiceConfig.KUBERNETES_BASE_PATH, fastApi.url());
            }
            props.putAll(nodes.configure(cluster.dir));
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            props.put("grpc.server.port", port);
            // Micronaut re-applies logger levels from configuration when the context starts.
            props.put("logger.levels.dev.sextant", "WARN");
            // The module's logback-test.xml sets dev.sextant.joinapi to DEBUG, and it stays in force once
            // Micronaut starts (ServiceLogging defers to a logback-test.xml), so that logger is named too.
            props.put("logger.levels.dev.sextant.joinapi", "WARN");
            try (ApplicationContext ctx = ApplicationContext.builder().properties(props).start()) {
                ctx.getBean(GrpcEmbeddedServer.class).start();
                List<SslContext> clients = new ArrayList<>();
                for (int i = 0; i < ATTESTERS; i++) {
                    SoftwareTpmAttester a = i == 0 ? nodes.good : new SoftwareTpmAttester(nodes.ekCa, SoftwareTpmOptions.defaults());
                    clients.add(AtlsContexts.client(a, null));
                }
                System.out.printf("join-api load bench: %d CPUs, %d tickets per level, %d client AKs%n"
                                + "  KMS double: FakeKeyService (real gRPC KeyService on loopback, keys = SHA-256(\"key-\" + id))%n"
                                + "  Kubernetes API double: %s%n",
                        Runtime.getRuntime().availableProcessors(), perLevel, ATTESTERS,
                        fabric8 ? "fabric8 CRUD mock (KubeApiDouble)" : "hash map (HashMapKubeApi)");
                try (PlainMutualTls plain = new PlainMutualTls()) {
                    run("warm-up", 16, 256, port, clients, true);
                    run("warm-up mTLS", 16, 256, plain.port(), List.of(plain.client()), false);
                    double mtls = run("plain mTLS", 64, perLevel, plain.port(), List.of(plain.client()), false);
                    double atls = run("aTLS handshakes", 64, perLevel, port, clients, false);
                    System.out.printf("  aTLS / plain mTLS handshakes: %.3f%n", atls / mtls);
                    for (int n : new int[] {16, 64, 256}) {
                        double tickets = run("tickets", n, perLevel, port, clients, true);
                        System.out.printf("  tickets N=%d / plain mTLS handshakes: %.3f, / bare aTLS handshakes: %.3f%n",
                                n, tickets / mtls, tickets / atls);
                    }
                }
            }
        }
        System.exit(0);
    }

    /** @return successful calls per second */
    private static double run(String what, int concurrency, int total, int port, List<SslContext> clients, boolean join)
            throws Exception {
        // Requests are made before the clock starts; client AK i always asks for its own disk and name.
        IssueJoinTicketRequest[] requests = new IssueJoinTicketRequest[total];
        for (int i = 0; join && i < total; i++) {
            int ak = i % clients.size();
            requests[i] = IssueJoinTicketRequest.newBuilder().setDiskUuid(String.format("5e47a170-0000-4000-8000-%012x", ak))
                    .setNodeName("bench-" + ak).build();
        }
        long[] latencies = new long[total];
        Arrays.fill(latencies, Long.MAX_VALUE);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger retried = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < concurrency; t++) {
            futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    long t0 = System.nanoTime();
                    if (withRetries(port, clients.get(i % clients.size()), requests[i], source(i), retried)) {
                        latencies[i] = System.nanoTime() - t0;
                    } else {
                        errors.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        // Only successful calls count, in the rate and in the percentiles (failures sort last as MAX_VALUE).
        Arrays.sort(latencies);
        int ok = total - errors.get();
        double rate = ok / seconds;
        System.out.printf("%-16s N=%3d: %7.1f /s  p50 %s  p99 %s  failed %d/%d  (attempts shed and retried: %d)%n",
                what, concurrency, rate, ms(latencies, ok, 0.50), ms(latencies, ok, 0.99), errors.get(), total,
                retried.get());
        return rate;
    }

    private static String ms(long[] sorted, int ok, double quantile) {
        return ok == 0 ? "     -   " : String.format("%6.1f ms", sorted[(int) (ok * quantile)] / 1e6);
    }

    /**
     * As a joining node does (node-boot JoinClient + Backoff): an attempt the server sheds
     * (UNAVAILABLE: its handshake work queue is full, HandshakeLimits) is retried after a full-jitter
     * exponential backoff, 1 s base, 30 s cap; the latency includes the waits. Only a call that still
     * fails after {@value #ATTEMPTS} attempts, or fails otherwise, is an error.
     */
    private static boolean withRetries(int port, SslContext client, IssueJoinTicketRequest join, InetSocketAddress source,
            AtomicInteger retried) throws InterruptedException {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Status.Code outcome = once(port, client, join, source);
            if (outcome == Status.Code.OK) {
                return true;
            }
            if (outcome != Status.Code.UNAVAILABLE) {
                return false;
            }
            retried.incrementAndGet();
            long ceiling = Math.min(30_000L, 1_000L << attempt);
            Thread.sleep((long) (ceiling * java.util.concurrent.ThreadLocalRandom.current().nextDouble()));
        }
        return false;
    }

    /**
     * Joiners are distinct machines: call i comes from 127.0.0.(2 + i mod 250) (all of 127/8 is
     * loopback on Linux), so the server's per-source handshake cap (HandshakeLimits) sees what it
     * would see in a cluster instead of 256 handshakes from one address.
     */
    private static InetSocketAddress source(int call) {
        return new InetSocketAddress("127.0.0." + (2 + call % SOURCES), 0);
    }

    /** One new connection (full aTLS handshake) and one call; OK if it answered as expected. */
    private static Status.Code once(int port, SslContext client, IssueJoinTicketRequest join, InetSocketAddress source)
            throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).sslContext(client)
                .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
                    @Override
                    public SocketAddress createSocketAddress(SocketAddress remote, io.grpc.Attributes attrs) {
                        return source;
                    }
                }).build();
        try {
            JoinServiceGrpc.JoinServiceBlockingStub stub =
                    JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
            if (join != null) {
                stub.issueJoinTicket(join);
                return Status.Code.OK;
            }
            try {
                stub.issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid("handshake-only").build());
                return Status.Code.UNKNOWN; // a handshake-only call must be refused
            } catch (StatusRuntimeException e) {
                return e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT ? Status.Code.OK : e.getStatus().getCode();
            }
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
