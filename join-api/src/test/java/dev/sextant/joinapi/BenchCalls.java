package dev.sextant.joinapi;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.JitCpu;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.handler.ssl.SslContext;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import javax.net.ssl.SSLException;

/**
 * The join benchmark's callers ({@link JoinLoadBench}): distinct machines, each call over its own new
 * client-attested aTLS connection from its own loopback address, retried as a node retries, and what
 * a run of calls measured.
 */
final class BenchCalls {
    /** Distinct loopback source addresses the joiners connect from. */
    private static final int SOURCES = 250;
    /** Attempts per call before it counts as an error (the last backoff ceiling is 30 s). */
    private static final int ATTEMPTS = 8;
    /** A call that only completes a handshake: see {@link #once}. */
    static final IntFunction<IssueJoinTicketRequest> HANDSHAKE_ONLY = machine -> null;

    private BenchCalls() {
    }

    /** Who calls and what each asks: caller c is {@code clients.get(c)} and asks {@code requests.apply(c)}. */
    record Calls(List<SslContext> clients, IntFunction<IssueJoinTicketRequest> requests) {}

    /** What one run of calls measured; CPU is the whole JVM's (both ends and the doubles). */
    record Outcome(int total, int errors, int retried, double seconds, double cpuMs, double jitMs,
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

    /** Distinct machines (AK, EK and AK certificates), each with its own client aTLS context; made on all cores. */
    static List<SslContext> machines(AttestedNodes nodes, int count) {
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
    static Outcome run(int concurrency, int port, Calls calls, int first, int total) throws Exception {
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

    static String ms(long[] sorted, int ok, double quantile) {
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
