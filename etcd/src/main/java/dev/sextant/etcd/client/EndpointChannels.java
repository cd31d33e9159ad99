package dev.sextant.etcd.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * One mutual-TLS channel per etcd endpoint, and the fail-over between them: a call goes to the
 * endpoint that answered last and, when that one is unreachable, cut off from its quorum or too slow,
 * to the next, each endpoint at most once per call. So a stopped member costs a call one refused
 * connection (or one deadline, for a member that accepts but cannot commit), and a call returns or
 * fails within endpoints × call timeout. An own loop rather than a gRPC load-balancing policy: only the
 * caller knows that "etcdserver: no leader" at one member means "ask another".
 *
 * <p>After a leader crashes, a write sent to a follower that still forwards to the dead leader is lost
 * inside etcd and only the deadline ends it: the first write after a crash takes about one call timeout
 * (docs/benchmarks.md). A leader stopped with SIGTERM hands its leadership over first and costs nothing.
 */
final class EndpointChannels implements AutoCloseable {
    private static final ClientInterceptor WAIT_FOR_READY = new ClientInterceptor() {
        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            return next.newCall(method, options.withWaitForReady());
        }
    };

    private final List<String> endpoints;
    private final Map<String, ManagedChannel> channels = new LinkedHashMap<>();
    private final SslContext tls;
    private final Duration timeout;
    private final AtomicInteger preferred = new AtomicInteger();
    private final LongAdder roundTrips = new LongAdder();

    EndpointChannels(EtcdClientConfig config) {
        this.endpoints = config.endpoints();
        this.timeout = config.callTimeout();
        try {
            // Trusts the etcd CA alone; grpc-java checks the member's name or address against its SANs.
            this.tls = GrpcSslContexts.forClient()
                    .trustManager(config.tls().caFile().toFile())
                    .keyManager(config.tls().certFile().toFile(), config.tls().keyFile().toFile())
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new UncheckedIOException(new IOException("cannot read the etcd client's TLS files "
                    + config.tls() + ": " + e.getMessage(), e));
        }
        endpoints.forEach(this::channel);
    }

    Duration timeout() {
        return timeout;
    }

    long roundTrips() {
        return roundTrips.sum();
    }

    /** {@code rpc} at the endpoints in turn, from the one that answered last. */
    <T> T call(String operation, Function<Channel, T> rpc) {
        List<EtcdException.Failure> failures = new ArrayList<>();
        StatusRuntimeException last = null;
        int start = preferred.get();
        for (int i = 0; i < endpoints.size(); i++) {
            int index = (start + i) % endpoints.size();
            String endpoint = endpoints.get(index);
            try {
                T result = once(endpoint, rpc);
                preferred.set(index);
                return result;
            } catch (StatusRuntimeException e) {
                failures.add(failure(endpoint, e));
                last = e;
                if (!elsewhere(e)) {
                    throw new EtcdException(operation, failures, e);
                }
            }
        }
        throw new EtcdException(operation, failures, last);
    }

    /**
     * {@code rpc} at one endpoint, which need not be among the configured ones; no fail-over. The call
     * waits (within its deadline) for the endpoint to accept a connection: asking one member is asking
     * whether it is up, and a member that is starting should get the time to answer.
     */
    <T> T callAt(String endpoint, String operation, Function<Channel, T> rpc) {
        EtcdClientConfig.port(endpoint);
        try {
            return once(endpoint, c -> rpc.apply(ClientInterceptors.intercept(c, WAIT_FOR_READY)));
        } catch (StatusRuntimeException e) {
            throw new EtcdException(operation, List.of(failure(endpoint, e)), e);
        }
    }

    private <T> T once(String endpoint, Function<Channel, T> rpc) {
        roundTrips.increment();
        return rpc.apply(ready(endpoint));
    }

    /**
     * etcd's rpctypes.MetadataRequireLeaderKey, for streams: a member without a leader refuses the stream, or
     * ends it when it loses its leader, rather than leaving it open and silent.
     */
    static Metadata requireLeader() {
        Metadata metadata = new Metadata();
        metadata.put(Metadata.Key.of("hasleader", Metadata.ASCII_STRING_MARSHALLER), "true");
        return metadata;
    }

    /** The configured endpoints, in the order given. */
    List<String> endpoints() {
        return endpoints;
    }

    /** The index of the endpoint that answered last: where a stream is opened first. */
    int preferred() {
        return preferred.get();
    }

    /** Remembers that the endpoint at {@code index} answered, so the next call goes there first. */
    void answered(int index) {
        preferred.set(index);
    }

    /** Counts one round trip made on a stream (a keep-alive sent and answered or not). */
    void countRoundTrip() {
        roundTrips.increment();
    }

    /** The channel to {@code endpoint}, asked to connect again at once if it failed to before. */
    Channel ready(String endpoint) {
        ManagedChannel channel = channel(endpoint);
        if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
            // A member that refused a connection once is asked again now, not after gRPC's back-off
            // (up to two minutes): it may have been restarted since.
            channel.resetConnectBackoff();
        }
        return channel;
    }

    private synchronized ManagedChannel channel(String endpoint) {
        return channels.computeIfAbsent(endpoint, e -> NettyChannelBuilder
                .forAddress(EtcdClientConfig.host(e), EtcdClientConfig.port(e))
                .sslContext(tls)
                .build());
    }

    /** Whether another member may well answer what this one could not. */
    private static boolean elsewhere(StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        String description = String.valueOf(e.getStatus().getDescription());
        // A member that was just removed, or is shutting down, answers "raft: stopped": it proposed nothing,
        // so asking the next member is safe for every call (seen in CI during a racing member removal).
        return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                || description.contains("not supported for learner") || stopped(description);
    }

    private static boolean stopped(String description) {
        return description.contains("raft: stopped") || description.contains("etcdserver: server stopped");
    }

    EtcdException.Failure failure(String endpoint, StatusRuntimeException e) {
        Status status = e.getStatus();
        return new EtcdException.Failure(endpoint, status.getCode(), reason(status));
    }

    /** etcd's and the transport's words, turned into what they mean for the caller. */
    private String reason(Status status) {
        String description = String.valueOf(status.getDescription());
        if (description.contains("etcdserver: no leader")) {
            return "etcd has no leader: no quorum (" + description + ")";
        }
        if (description.contains("etcdserver: request timed out")) {
            return "etcd did not commit in time: no quorum, or the leader just changed (" + description + ")";
        }
        if (stopped(description)) {
            return "the member stopped: it was removed, or is shutting down (" + description + ")";
        }
        if (description.contains("not supported for learner")) {
            return "the member is a learner, which serves no such call (" + description + ")";
        }
        if (status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
            return "no answer within " + timeout.toMillis() + " ms";
        }
        for (Throwable c = status.getCause(); c != null; c = c.getCause()) {
            if (c instanceof ConnectException) {
                return "nothing answers there (" + c.getMessage() + ")";
            }
            if (c instanceof SSLException) {
                return "the TLS handshake failed (" + c.getMessage() + ")";
            }
        }
        return status.getCause() == null ? description : description + " (" + status.getCause() + ")";
    }

    @Override
    public synchronized void close() {
        for (ManagedChannel channel : channels.values()) {
            channel.shutdownNow();
        }
        for (ManagedChannel channel : channels.values()) {
            try {
                channel.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
