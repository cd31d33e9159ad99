package dev.sextant.joinapi;

import ch.qos.logback.classic.Level;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.JitCpu;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.netty.handler.ssl.SslContext;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.security.PublicKey;
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
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import javax.net.ssl.SSLException;
import org.slf4j.LoggerFactory;

/**
 * Load benchmark: N concurrent joiners (16, 64, 256), each joining over its OWN new client-attested
 * aTLS connection (a fresh handshake per ticket, as a booting node does), against the production
 * wiring in this JVM: the Micronaut service with the reloading verifier (EK-CA AK trust, signed
 * measurements), the KMS test double on loopback gRPC and a Kubernetes API test double. Client
 * attestations come from software TPMs, so the client side costs one RSA signature.
 *
 * <p>Every ticket of a level is a distinct machine joining for the first time (its own AK, AK and EK
 * certificates, state disk and node name; the machines are made before any clock starts, and the
 * Kubernetes double forgets all bindings before each level, a new cluster), so each ticket creates
 * its five bindings; the EK CA signs with RSA-2048 as tpm-manufacturer's LocalCa does. The same
 * machines then join once more at 256 joiners ("retried joins": the bindings exist, so each create
 * answers 409 and is read back). Prints successful tickets/s, p50/p99 latency of the successful ones
 * and failures per level; bare aTLS handshakes/s (handshake + a trivial call refused before any KMS
 * or API work) from machines the verifier knows and from new ones (whose certificate paths it builds
 * first); and the same handshake-and-call over plain mutual TLS (P-256 certificates, no
 * attestation, no resumption: built as bench-atls's baselines, {@link PlainMutualTls}), measured in the same run, with the ratios of tickets/s to it and to the bare aTLS
 * rate (the goal: tickets at 256 joiners ≥ 0.8 × bare aTLS): to the known machines' rate, the
 * stricter one, and to the new machines', whose handshake is the one a joining machine makes; and
 * last, the same ratio with both kinds at 256 joiners in alternating slices ({@link #alternating}).
 * Every level prints the JVM's CPU per call, the JIT compiler's part of it and the cores it kept
 * busy; ticket levels also the hash-map
 * Kubernetes double's share (a stand-in for the API server, sharing the machine). Before every
 * kind of level, calls of that kind warm the JVM up until the JIT compilers settle ({@link #warmUp}),
 * so no level pays for the compilations the previous level's different calls left behind.
 *
 * <p>Run: {@code scripts/bench-join.sh [tickets-per-level] [fabric8]}; with {@code fabric8} the
 * Kubernetes API double is the fabric8 CRUD mock (O(objects) per request) instead of a hash map.
 * Joiners connect from distinct loopback addresses and retry shed attempts as a node does
 * ({@link #withRetries}); the shed attempts are printed per level.
 */
public final class JoinLoadBench {
    /**
     * Machines that warm up (their first joins, then every warm-up slice of this many calls); the
     * "aTLS, known" level handshakes from them.
     */
    private static final int WARM_UP = 256;
    /** Rounds of the alternating measurement ({@link #alternating}). */
    private static final int ROUNDS = 4;
    /** Distinct loopback source addresses the joiners connect from. */
    private static final int SOURCES = 250;
    /** Attempts per call before it counts as an error (the last backoff ceiling is 30 s). */
    private static final int ATTEMPTS = 8;
    /** Warm-up ends when the JIT compilers take less than this share of the CPU (as in AtlsBench). */
    private static final double SETTLED_JIT_SHARE = 0.10;
    /**
     * On a 2-core machine the compilers need dozens of slices to get below that share; a lower cap
     * would measure levels with them still busy, adding their CPU to every call on both sides of
     * every ratio. The warm-up line says where it stood.
     */
    private static final int MAX_WARM_UP_SLICES = 80;
    /**
     * Machines an aTLS verifier remembers as verified (VerifiedAkChains.DEFAULT_CAPACITY,
     * least-recently-used): the pool of new machines must be larger, so that walking it in order
     * always finds a machine the verifier has forgotten, whose certificate paths it builds again.
     */
    private static final int VERIFIER_REMEMBERS = 1024;
    /** What a handshake-only level resets between warm-up slices: nothing. */
    private static final Runnable NO_RESET = () -> {};
    /** A call that only completes a handshake: see {@link #once}. */
    private static final IntFunction<IssueJoinTicketRequest> HANDSHAKE_ONLY = machine -> null;
    /** Held strongly: java.util.logging forgets levels set on loggers that get garbage-collected. */
    private static final java.util.logging.Logger FABRIC8_LOG = java.util.logging.Logger.getLogger("io.fabric8");

    public static void main(String[] args) throws Exception {
        int perLevel = args.length > 0 ? Integer.parseInt(args[0]) : 4096;
        if (perLevel <= VERIFIER_REMEMBERS) {
            throw new IllegalArgumentException("tickets per level must be more than " + VERIFIER_REMEMBERS
                    + " (the machines a verifier remembers), so that every ticket comes from a machine new to it; got "
                    + perLevel);
        }
        boolean fabric8 = args.length > 1 && args[1].equals("fabric8");
        // Per-ticket INFO lines (ours, and the fabric8 mock's java.util.logging) would dominate the profile.
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("ROOT")).setLevel(Level.WARN);
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.sextant")).setLevel(Level.WARN);
        FABRIC8_LOG.setLevel(java.util.logging.Level.WARNING);
        try (TestCluster cluster = new TestCluster(); HashMapKubeApi fastApi = new HashMapKubeApi()) {
            // The EK CA of swtpm nodes (tpm-manufacturer's LocalCa) signs with RSA-2048.
            AttestedNodes nodes = new AttestedNodes(new TestPki("sextant-bench-ek-ca", "RSA"));
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
                long made = System.nanoTime();
                List<SslContext> machines = machines(nodes, WARM_UP + perLevel);
                System.out.printf("join-api load bench: %d CPUs, %d tickets per level, each from a distinct machine "
                                + "(%d software-TPM machines, EK CA RSA-2048, made in %.1f s)%n"
                                + "  KMS double: FakeKeyService (real gRPC KeyService on loopback, keys = SHA-256(\"key-\" + id))%n"
                                + "  Kubernetes API double: %s%n",
                        Runtime.getRuntime().availableProcessors(), perLevel, machines.size(),
                        (System.nanoTime() - made) / 1e9,
                        fabric8 ? "fabric8 CRUD mock (KubeApiDouble)" : "hash map (HashMapKubeApi)");
                Runnable newCluster = fabric8 ? cluster.kube::deleteBindings : fastApi::clear;
                try (PlainMutualTls plain = new PlainMutualTls()) {
                    List<SslContext> seen = machines.subList(0, WARM_UP);
                    List<SslContext> pool = machines.subList(WARM_UP, machines.size());
                    Calls plainCalls = new Calls(List.of(plain.client()), HANDSHAKE_ONLY);
                    Calls seenHandshakes = new Calls(seen, HANDSHAKE_ONLY);
                    // The seen machines' first handshakes and joins: their certificate paths are built here.
                    measure("first joins", 16, port, new Calls(seen, JoinLoadBench::join), 0, WARM_UP);
                    warmUp(64, plain.port(), plainCalls, NO_RESET);
                    long checked = plain.peerChecks();
                    double mtls = measure("plain mTLS", 64, plain.port(), plainCalls, 0, perLevel);
                    System.out.printf("  plain mTLS: %.2f peer certificates checked per call (2: a full handshake, "
                            + "none resumed, as in aTLS)%n", (plain.peerChecks() - checked) / (double) perLevel);
                    warmUp(64, port, seenHandshakes, NO_RESET);
                    double known = measure("aTLS, known", 64, port, seenHandshakes, 0, perLevel);
                    // A machine's first handshake also builds its EK and AK certificate paths. The level
                    // starts in the pool where its warm-up stopped, so no machine of it is remembered.
                    Calls newHandshakes = new Calls(pool, HANDSHAKE_ONLY);
                    int warmedOn = warmUp(64, port, newHandshakes, NO_RESET);
                    double atls = measure("aTLS, new", 64, port, newHandshakes, warmedOn, perLevel);
                    // The ticket levels go on from there too: the verifier remembers the pool's last 1024.
                    int next = (warmedOn + perLevel) % pool.size();
                    System.out.printf("  aTLS / plain mTLS handshakes: %.3f from known machines, %.3f from new ones%n",
                            known / mtls, atls / mtls);
                    Calls joins = new Calls(pool, i -> join(WARM_UP + i));
                    for (int n : new int[] {16, 64, 256}) {
                        // Every warm-up slice and every level is a cluster its machines join for the first time.
                        warmUp(n, port, new Calls(seen, JoinLoadBench::join), newCluster);
                        newCluster.run();
                        long kubeCpu = fastApi.cpuNanos();
                        fastApi.countConnectionsFromNow();
                        double tickets = measure("tickets", n, port, joins, next, perLevel);
                        System.out.printf("  tickets N=%d / plain mTLS handshakes: %.3f, / bare aTLS handshakes: %.3f "
                                        + "(from new machines, as every joiner here is: %.3f)%s%n",
                                n, tickets / mtls, tickets / known, tickets / atls,
                                fabric8 ? "" : doubleShare(fastApi, kubeCpu, perLevel));
                    }
                    // The pool's bindings exist now: every create answers 409 and is read back.
                    warmUp(256, port, joins, NO_RESET);
                    long kubeCpu = fastApi.cpuNanos();
                    fastApi.countConnectionsFromNow();
                    double retried = measure("retried joins", 256, port, joins, next, perLevel);
                    System.out.printf("  retried joins N=256 / bare aTLS handshakes: %.3f%s%n", retried / known,
                            fabric8 ? "" : doubleShare(fastApi, kubeCpu, perLevel));
                    alternating(port, newHandshakes, joins, newCluster, next + perLevel, perLevel);
                }
            }
        }
        System.exit(0);
    }

    /**
     * The target's ratio like for like: {@value #ROUNDS} rounds, each a slice of bare handshakes then a
     * slice of first joins (a new cluster each), both at 256 joiners and from machines new to the
     * verifier (the walk through the pool goes on from slice to slice). The levels above compare
     * tickets at 256 with handshakes at 64, minutes apart: a handshake at 256 costs less CPU than at
     * 64 (likely because handshakes waiting together share a quote), and on a shared machine whose
     * speed drifts within minutes the two levels' ratio moves for the same code. Here both kinds see
     * the same load and the same minutes.
     */
    private static void alternating(int port, Calls handshakes, Calls joins, Runnable newCluster, int first, int perLevel)
            throws Exception {
        int slice = perLevel / ROUNDS;
        Outcome[] shakes = new Outcome[ROUNDS];
        Outcome[] tickets = new Outcome[ROUNDS];
        double[] ratios = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            shakes[r] = run(256, port, handshakes, first + 2 * r * slice, slice);
            newCluster.run();
            tickets[r] = run(256, port, joins, first + (2 * r + 1) * slice, slice);
            ratios[r] = tickets[r].rate() / shakes[r].rate();
        }
        Arrays.sort(ratios);
        Outcome h = Outcome.sum(shakes);
        Outcome t = Outcome.sum(tickets);
        System.out.printf("alternating      N=256: %d rounds of %d bare aTLS handshakes then %d tickets, new machines: "
                        + "tickets / bare aTLS %.3f (rounds %.3f to %.3f), %.1f vs %.1f /s; CPU %.2f vs %.2f ms/call "
                        + "(JIT %.2f vs %.2f), cores busy %.2f vs %.2f; ticket p50 %s p99 %s; failed %d/%d%n",
                ROUNDS, slice, slice, t.rate() / h.rate(), ratios[0], ratios[ROUNDS - 1], t.rate(), h.rate(),
                t.cpuMs() / t.ok(), h.cpuMs() / h.ok(), t.jitMs() / t.ok(), h.jitMs() / h.ok(),
                t.cpuMs() / 1e3 / t.seconds(), h.cpuMs() / 1e3 / h.seconds(),
                ms(t.sortedLatencies(), t.ok(), 0.50), ms(t.sortedLatencies(), t.ok(), 0.99),
                h.errors() + t.errors(), h.total() + t.total());
    }

    /** Who calls and what each asks: caller c is {@code clients.get(c)} and asks {@code requests.apply(c)}. */
    private record Calls(List<SslContext> clients, IntFunction<IssueJoinTicketRequest> requests) {}

    /** What one run of calls measured; CPU is the whole JVM's (both ends and the doubles). */
    private record Outcome(int total, int errors, int retried, double seconds, double cpuMs, double jitMs,
            long[] sortedLatencies) {
        int ok() {
            return total - errors;
        }

        double rate() {
            return ok() / seconds;
        }

        double jitShare() {
            return cpuMs == 0 ? 0 : jitMs / cpuMs;
        }

        /** Several runs of one kind as one: their calls, times and CPU added, latencies merged. */
        static Outcome sum(Outcome... runs) {
            long[] latencies = Arrays.stream(runs).flatMapToLong(o -> Arrays.stream(o.sortedLatencies())).sorted().toArray();
            return new Outcome(Arrays.stream(runs).mapToInt(Outcome::total).sum(),
                    Arrays.stream(runs).mapToInt(Outcome::errors).sum(), Arrays.stream(runs).mapToInt(Outcome::retried).sum(),
                    Arrays.stream(runs).mapToDouble(Outcome::seconds).sum(), Arrays.stream(runs).mapToDouble(Outcome::cpuMs).sum(),
                    Arrays.stream(runs).mapToDouble(Outcome::jitMs).sum(), latencies);
        }
    }

    /**
     * Slices of {@value #WARM_UP} unmeasured calls ({@code reset} before each) until the JIT compilers
     * take less than {@value #SETTLED_JIT_SHARE} of the CPU, at most {@value #MAX_WARM_UP_SLICES}
     * slices, as the aTLS bench does: HotSpot recompiles whenever the mix of calls changes (a run
     * repeating every level three times still compiled about 1500 methods and made 750 not entrant in
     * its third round), and a ticket runs far more code than a handshake, so without this a level
     * pays for compilations as CPU per call, tickets more than handshakes.
     */
    private static int warmUp(int concurrency, int port, Calls calls, Runnable reset) throws Exception {
        Outcome slice;
        int slices = 0;
        do {
            reset.run();
            // Each slice goes on through the callers where the last one stopped.
            slice = run(concurrency, port, calls, slices * WARM_UP, WARM_UP);
            slices++;
        } while (slice.jitShare() > SETTLED_JIT_SHARE && slices < MAX_WARM_UP_SLICES);
        System.out.printf("  warm-up: %d x %d calls until JIT < %.0f%% of CPU (last slice: %.0f%%)%n",
                slices, WARM_UP, SETTLED_JIT_SHARE * 100, slice.jitShare() * 100);
        return slices * WARM_UP;
    }

    /** Runs and prints a level of calls {@code first} to {@code first + total - 1}; returns its successful calls per second. */
    private static double measure(String what, int concurrency, int port, Calls calls, int first, int total)
            throws Exception {
        Outcome o = run(concurrency, port, calls, first, total);
        long[] latencies = o.sortedLatencies();
        int ok = Math.max(o.ok(), 1);
        // CPU per successful call is steadier than the rate on a busy 2-core machine. The rate is
        // CPU-bound only while every core is busy: "cores busy" below the machine's count is time the
        // level spent waiting (shed joiners backing off).
        System.out.printf("%-16s N=%3d: %7.1f /s  p50 %s  p99 %s  CPU %5.2f ms/call (JIT %4.2f), cores busy %4.2f"
                        + "  failed %d/%d  (attempts shed and retried: %d)%n",
                what, concurrency, o.rate(), ms(latencies, o.ok(), 0.50), ms(latencies, o.ok(), 0.99), o.cpuMs() / ok,
                o.jitMs() / ok, o.cpuMs() / 1e3 / o.seconds(), o.errors(), o.total(), o.retried());
        return o.rate();
    }

    /**
     * The Kubernetes double's CPU per ticket since {@code before} (a stand-in sharing the machine, not the
     * join service's work), and the HTTP connections the join service's client used.
     */
    private static String doubleShare(HashMapKubeApi api, long before, int tickets) {
        return String.format(" (of its CPU, the Kubernetes double's: %.2f ms/ticket; API connections used: %d)",
                (api.cpuNanos() - before) / 1e6 / tickets, api.connectionsCounted());
    }

    /** Machine {@code m} always asks for its own state disk and node name. */
    private static IssueJoinTicketRequest join(int machine) {
        return IssueJoinTicketRequest.newBuilder().setDiskUuid(String.format("5e47a170-0000-4000-8000-%012x", machine))
                .setNodeName("bench-" + machine).build();
    }

    /** Distinct machines (AK, EK and AK certificates), each with its own client aTLS context; made on all cores. */
    private static List<SslContext> machines(AttestedNodes nodes, int count) {
        PublicKey ek = SoftwareTpmAttester.newRsaKey().getPublic();
        return IntStream.range(0, count).parallel().mapToObj(i -> {
            try {
                return AtlsContexts.client(OwnAttestation.by(new SoftwareTpmAttester(nodes.ekCa, SoftwareTpmOptions.defaults(), ek)),
                        ServerVerification.insecureAcceptAnyServer());
            } catch (SSLException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    /**
     * Calls {@code first} to {@code first + total - 1}, each over a new connection (a full handshake);
     * only successful calls count.
     */
    private static Outcome run(int concurrency, int port, Calls calls, int first, int total) throws Exception {
        List<SslContext> clients = calls.clients();
        // Requests are made before the clock starts; call first + i comes from caller (first + i) mod their number.
        IssueJoinTicketRequest[] requests = new IssueJoinTicketRequest[total];
        SslContext[] callers = new SslContext[total];
        for (int i = 0; i < total; i++) {
            int caller = (first + i) % clients.size();
            requests[i] = calls.requests().apply(caller);
            callers[i] = clients.get(caller);
        }
        long[] latencies = new long[total];
        Arrays.fill(latencies, Long.MAX_VALUE);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger retried = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = os.getProcessCpuTime();
        long jitStart = JitCpu.nanos();
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < concurrency; t++) {
            futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    long t0 = System.nanoTime();
                    if (withRetries(port, callers[i], requests[i], source(i), retried)) {
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
        double cpuMs = (os.getProcessCpuTime() - cpuStart) / 1e6;
        double jitMs = (JitCpu.nanos() - jitStart) / 1e6;
        pool.shutdown();
        // Failures sort last as MAX_VALUE, outside the percentiles of the successful calls.
        Arrays.sort(latencies);
        return new Outcome(total, errors.get(), retried.get(), seconds, cpuMs, jitMs, latencies);
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
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress("127.0.0.1", port).sslContext(client)
                .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
                    @Override
                    public SocketAddress createSocketAddress(SocketAddress remote, io.grpc.Attributes attrs) {
                        return source;
                    }
                });
        // Otherwise every build looks for grpc-census on the class path and, not finding it, walks
        // every jar: a visible share of this bench's CPU, on both sides of every ratio.
        InternalNettyChannelBuilder.setStatsEnabled(builder, false);
        InternalNettyChannelBuilder.setTracingEnabled(builder, false);
        ManagedChannel channel = builder.build();
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
