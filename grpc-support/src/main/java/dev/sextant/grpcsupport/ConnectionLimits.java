package dev.sextant.grpcsupport;

import io.grpc.netty.NettyServerBuilder;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What one client connection may hold on a Sextant server: anyone may connect to a node's ports
 * before proving anything, and grpc-java's defaults let one connection keep unlimited calls in
 * flight and stay open forever. The one place every server of a node (and the join service) takes
 * these settings from.
 *
 * @param callsPerConnection concurrent calls (HTTP/2 streams) on one connection; a client queues the rest
 * @param idle               a connection without a call for this long is closed
 * @param age                a connection is asked to go away after this long (the client reconnects)
 * @param ageGrace           calls in flight on a connection past its age get this long to finish
 * @param keepAliveTime      the server pings a connection quiet for this long, to find peers that are gone
 * @param keepAliveTimeout   and closes it when the ping is not answered within this
 */
public record ConnectionLimits(int callsPerConnection, Duration idle, Duration age, Duration ageGrace,
                               Duration keepAliveTime, Duration keepAliveTimeout) {

    /**
     * 16 calls: an honest client (CLI, node, join service client) has one or two in flight. Idle 5
     * minutes: every honest call is answered well within it. Age 1 hour with 15 minutes' grace:
     * longer than the longest honest call, an init of up to 10 minutes by default.
     */
    public static ConnectionLimits defaults() {
        return new ConnectionLimits(16, Duration.ofMinutes(5), Duration.ofHours(1), Duration.ofMinutes(15),
                Duration.ofMinutes(2), Duration.ofSeconds(20));
    }

    public NettyServerBuilder applyTo(NettyServerBuilder builder) {
        return builder.maxConcurrentCallsPerConnection(callsPerConnection)
                .maxConnectionIdle(idle.toMillis(), TimeUnit.MILLISECONDS)
                .maxConnectionAge(age.toMillis(), TimeUnit.MILLISECONDS)
                .maxConnectionAgeGrace(ageGrace.toMillis(), TimeUnit.MILLISECONDS)
                .keepAliveTime(keepAliveTime.toMillis(), TimeUnit.MILLISECONDS)
                .keepAliveTimeout(keepAliveTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
