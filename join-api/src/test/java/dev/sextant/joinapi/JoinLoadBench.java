package dev.sextant.joinapi;

import static dev.sextant.joinapi.BenchCalls.HANDSHAKE_ONLY;
import static dev.sextant.joinapi.BenchCalls.ms;
import static dev.sextant.joinapi.BenchCalls.run;

import ch.qos.logback.classic.Level;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.joinapi.BenchCalls.Calls;
import dev.sextant.joinapi.BenchCalls.Outcome;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.netty.handler.ssl.SslContext;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Load benchmark: N concurrent joiners (16, 64, 256), each joining over its OWN new client-attested
 * aTLS connection (a fresh handshake per ticket, as a booting node does), against the production
 * wiring in this JVM: the Micronaut service with the reloading verifier (EK-CA AK trust, signed
 * measurements), the KMS test double on loopback gRPC, a Kubernetes API test double for the bootstrap
 * tokens, and the bindings in each of two stores in turn ({@link BenchStore}): the in-memory double
 * (the baseline) and a real three-member etcd on loopback. Client attestations come from software
 * TPMs, so the client side costs one signature.
 *
 * <p>Every ticket of a level is a distinct machine joining for the first time (its own AK, AK and EK
 * certificates, state disk and node name; the machines are made before any clock starts, and the store
 * forgets all bindings before each level, a new cluster), so each ticket creates its five bindings in
 * one transaction; the EK CA signs with RSA-2048 as tpm-manufacturer's LocalCa does. The same
 * machines then join once more at 256 joiners ("retried joins": the bindings exist, the transaction
 * is refused and its read shows them all this machine's). Prints successful tickets/s, p50/p99 latency
 * of the successful ones, failures, and the store's round trips per ticket, per level; bare aTLS
 * handshakes/s (handshake + a trivial call refused before any KMS or store work) from machines the
 * verifier knows and from new ones (whose certificate paths it builds first); and the same
 * handshake-and-call over plain mutual TLS (P-256 certificates, no attestation, no resumption: built as
 * bench-atls's baselines, {@link PlainMutualTls}), measured in the same run (once, with the first
 * store's service), with the ratios of tickets/s to it and to the bare aTLS rate: to the known
 * machines' rate, the stricter one, and to the new machines', whose handshake is the one a joining
 * machine makes; and last, per store, the same ratio with both kinds at 256 joiners in alternating
 * slices ({@link #alternating}), the goal's measure: ≥ 0.8 with the double, ≥ 0.7 with etcd. Every
 * level prints the JVM's CPU per call (etcd's own CPU, in its processes, is not in it), the JIT
 * compiler's part of it and the cores it kept busy; ticket levels also the hash-map Kubernetes double's
 * share (a stand-in for the API server, sharing the machine). Before every kind of level, calls of that
 * kind warm the JVM up until the JIT compilers settle ({@link #warmUp}), so no level pays for the
 * compilations the previous level's different calls left behind.
 *
 * <p>Run: {@code scripts/bench-join.sh [tickets-per-level] [fabric8]}; with {@code fabric8} the
 * Kubernetes API double is the fabric8 CRUD mock (O(objects) per request) instead of a hash map.
 * Joiners connect from distinct loopback addresses and retry shed attempts as a node does
 * ({@link BenchCalls}); the shed attempts are printed per level.
 */
public final class JoinLoadBench {
    /**
     * Machines that warm up (their first joins, then every warm-up slice of this many calls); the
     * "aTLS, known" level handshakes from them.
     */
    private static final int WARM_UP = 256;
    /** Rounds of the alternating measurement ({@link #alternating}). */
    private static final int ROUNDS = 4;
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
    /** The joiners' trust manager, which accepts any server and warns at every handshake. */
    private static final String INSECURE_CLIENTS = "dev.sextant.atls.AnyServerTrustManager";
    /** Held strongly: java.util.logging forgets levels set on loggers that get garbage-collected. */
    private static final java.util.logging.Logger FABRIC8_LOG = java.util.logging.Logger.getLogger("io.fabric8");

    /** The handshake rates every store's tickets are compared with, measured once. */
    private record Baselines(double mtls, double known, double atls, int next) {}

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
        // The joiners accept any server (they measure the service, not its attestation), and say so at
        // WARN in every handshake: thousands of lines per level, on the bench's CPU.
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(INSECURE_CLIENTS)).setLevel(Level.ERROR);
        FABRIC8_LOG.setLevel(java.util.logging.Level.WARNING);
        try (TestCluster cluster = new TestCluster(); HashMapKubeApi fastApi = new HashMapKubeApi();
             PlainMutualTls plain = new PlainMutualTls()) {
            // The EK CA of swtpm nodes (tpm-manufacturer's LocalCa) signs with RSA-2048.
            AttestedNodes nodes = new AttestedNodes(new TestPki("sextant-bench-ek-ca", "RSA"));
            Map<String, String> attestation = nodes.configure(cluster.dir);
            long made = System.nanoTime();
            List<SslContext> machines = BenchCalls.machines(nodes, WARM_UP + perLevel);
            System.out.printf("join-api load bench: %d CPUs, %d tickets per level, each from a distinct machine "
                            + "(%d software-TPM machines, EK CA RSA-2048, made in %.1f s)%n"
                            + "  KMS double: FakeKeyService (real gRPC KeyService on a Unix socket, keys = SHA-256(\"key-\" + id))%n"
                            + "  Kubernetes API double (bootstrap tokens): %s%n",
                    Runtime.getRuntime().availableProcessors(), perLevel, machines.size(),
                    (System.nanoTime() - made) / 1e9,
                    fabric8 ? "fabric8 CRUD mock (KubeApiDouble)" : "hash map (HashMapKubeApi)");
            Baselines baselines = null;
            for (int s = 0; s < 2; s++) {
                try (BenchStore store = s == 0 ? BenchStore.inMemory() : BenchStore.etcd()) {
                    Map<String, Object> props = store.properties(cluster);
                    if (!fabric8) {
                        props.put(JoinServiceConfig.KUBERNETES_BASE_PATH, fastApi.url());
                    }
                    props.putAll(attestation);
                    int port;
                    try (ServerSocket socket = new ServerSocket(0)) {
                        port = socket.getLocalPort();
                    }
                    props.put("grpc.server.port", port);
                    // Micronaut re-applies logger levels from configuration when the context starts.
                    props.put("logger.levels.dev.sextant", "WARN");
                    // The module's logback-test.xml sets dev.sextant.joinapi to DEBUG, and it stays in force once
                    // Micronaut starts (ServiceLogging defers to a logback-test.xml), so that logger is named too.
                    props.put("logger.levels.dev.sextant.joinapi", "WARN");
                    props.put("logger.levels." + INSECURE_CLIENTS, "ERROR");
                    try (ApplicationContext ctx = ApplicationContext.builder().properties(props).start()) {
                        ctx.getBean(GrpcEmbeddedServer.class).start();
                        System.out.printf("bindings: %s%n", store.name());
                        List<SslContext> seen = machines.subList(0, WARM_UP);
                        // The seen machines' first handshakes and joins: their certificate paths are built here.
                        measure("first joins", 16, port, new Calls(seen, JoinLoadBench::join), 0, WARM_UP);
                        store.reset(ctx);
                        if (baselines == null) {
                            baselines = baselines(port, plain, machines, perLevel);
                        }
                        tickets(new Service(ctx, port, store), machines, baselines, fabric8 ? null : fastApi, perLevel);
                    }
                }
            }
        }
        System.exit(0);
    }

    /** One join service under test and its binding store. */
    private record Service(ApplicationContext ctx, int port, BenchStore store) {
        Runnable newCluster() {
            return () -> store.reset(ctx);
        }

        long roundTrips() {
            return store.roundTrips(ctx);
        }
    }

    private static Baselines baselines(int port, PlainMutualTls plain, List<SslContext> machines, int perLevel) throws Exception {
        List<SslContext> seen = machines.subList(0, WARM_UP);
        List<SslContext> pool = machines.subList(WARM_UP, machines.size());
        Calls plainCalls = new Calls(List.of(plain.client()), HANDSHAKE_ONLY);
        Calls seenHandshakes = new Calls(seen, HANDSHAKE_ONLY);
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
        System.out.printf("  aTLS / plain mTLS handshakes: %.3f from known machines, %.3f from new ones%n",
                known / mtls, atls / mtls);
        // The ticket levels go on from there: the verifier remembers the pool's last 1024.
        return new Baselines(mtls, known, atls, (warmedOn + perLevel) % pool.size());
    }

    /** One store's ticket levels, its retried joins and its alternating line. */
    private static void tickets(Service service, List<SslContext> machines, Baselines b, HashMapKubeApi api, int perLevel)
            throws Exception {
        int port = service.port();
        List<SslContext> seen = machines.subList(0, WARM_UP);
        List<SslContext> pool = machines.subList(WARM_UP, machines.size());
        Calls joins = new Calls(pool, i -> join(WARM_UP + i));
        for (int n : new int[] {16, 64, 256}) {
            // Every warm-up slice and every level is a cluster its machines join for the first time.
            warmUp(n, port, new Calls(seen, JoinLoadBench::join), service.newCluster());
            service.newCluster().run();
            long kubeCpu = api == null ? 0 : api.cpuNanos();
            if (api != null) {
                api.countConnectionsFromNow();
            }
            long trips = service.roundTrips();
            double tickets = measure("tickets", n, port, joins, b.next(), perLevel);
            System.out.printf("  tickets N=%d / plain mTLS handshakes: %.3f, / bare aTLS handshakes: %.3f "
                            + "(from new machines, as every joiner here is: %.3f); store round trips per first join: %.2f%s%n",
                    n, tickets / b.mtls(), tickets / b.known(), tickets / b.atls(),
                    (service.roundTrips() - trips) / (double) perLevel, api == null ? "" : doubleShare(api, kubeCpu, perLevel));
        }
        // The pool's bindings exist now: every transaction is refused and its read shows them this machine's.
        warmUp(256, port, joins, NO_RESET);
        long kubeCpu = api == null ? 0 : api.cpuNanos();
        if (api != null) {
            api.countConnectionsFromNow();
        }
        long trips = service.roundTrips();
        double retried = measure("retried joins", 256, port, joins, b.next(), perLevel);
        System.out.printf("  retried joins N=256 / bare aTLS handshakes: %.3f; store round trips per retried join: %.2f%s%n",
                retried / b.known(), (service.roundTrips() - trips) / (double) perLevel,
                api == null ? "" : doubleShare(api, kubeCpu, perLevel));
        alternating(service, new Calls(pool, HANDSHAKE_ONLY), joins, b.next() + perLevel, perLevel);
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
    private static void alternating(Service service, Calls handshakes, Calls joins, int first, int perLevel)
            throws Exception {
        int slice = perLevel / ROUNDS;
        Outcome[] shakes = new Outcome[ROUNDS];
        Outcome[] tickets = new Outcome[ROUNDS];
        double[] ratios = new double[ROUNDS];
        long trips = 0;
        for (int r = 0; r < ROUNDS; r++) {
            shakes[r] = run(256, service.port(), handshakes, first + 2 * r * slice, slice);
            service.newCluster().run();
            long before = service.roundTrips();
            tickets[r] = run(256, service.port(), joins, first + (2 * r + 1) * slice, slice);
            trips += service.roundTrips() - before;
            ratios[r] = tickets[r].rate() / shakes[r].rate();
        }
        Arrays.sort(ratios);
        Outcome h = Outcome.sum(shakes);
        Outcome t = Outcome.sum(tickets);
        System.out.printf("alternating      N=256: %d rounds of %d bare aTLS handshakes then %d tickets, new machines: "
                        + "tickets / bare aTLS %.3f (rounds %.3f to %.3f), %.1f vs %.1f /s; CPU %.2f vs %.2f ms/call "
                        + "(JIT %.2f vs %.2f), cores busy %.2f vs %.2f; ticket p50 %s p99 %s; failed %d/%d; "
                        + "store round trips per first join %.2f [%s]%n",
                ROUNDS, slice, slice, t.rate() / h.rate(), ratios[0], ratios[ROUNDS - 1], t.rate(), h.rate(),
                t.cpuMs() / t.ok(), h.cpuMs() / h.ok(), t.jitMs() / t.ok(), h.jitMs() / h.ok(),
                t.cpuMs() / 1e3 / t.seconds(), h.cpuMs() / 1e3 / h.seconds(),
                ms(t.sortedLatencies(), t.ok(), 0.50), ms(t.sortedLatencies(), t.ok(), 0.99),
                h.errors() + t.errors(), h.total() + t.total(), trips / (double) t.total(), service.store().label());
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
}
