package dev.sextant.nodeboot.unlock;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * At most {@code limit} calls in flight from one source, over however many connections: a right
 * key waits for the unlock slot, and a stranger must not hold a thread and a place in that queue
 * for every call it opens. An honest CLI makes one call at a time. A call beyond the limit is
 * refused RESOURCE_EXHAUSTED at once, before the method sees it. A source is counted as the aTLS
 * handshake cap counts it: an IPv4 address, or an IPv6 /64 (one host can pick any address in it).
 */
final class CallsPerSource implements ServerInterceptor {
    private final int limit;
    private final Map<String, Integer> inFlight = new ConcurrentHashMap<>();

    CallsPerSource(int limit) {
        this.limit = limit;
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        String source = sourceOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        if (source == null) {
            return next.startCall(call, headers);
        }
        if (!enter(source)) {
            call.close(Status.RESOURCE_EXHAUSTED.withDescription("more than " + limit + " concurrent recovery calls from"
                    + " one source address; wait for an answer before calling again"), new Metadata());
            return new ServerCall.Listener<>() { };
        }
        AtomicBoolean left = new AtomicBoolean();
        Runnable leave = () -> {
            if (left.compareAndSet(false, true)) {
                inFlight.computeIfPresent(source, (s, n) -> n == 1 ? null : n - 1);
            }
        };
        try {
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                @Override
                public void onComplete() {
                    leave.run();
                    super.onComplete();
                }

                @Override
                public void onCancel() {
                    leave.run();
                    super.onCancel();
                }
            };
        } catch (RuntimeException e) {
            leave.run();
            throw e;
        }
    }

    /** Counts the call in unless its source already has {@code limit} in flight. */
    private boolean enter(String source) {
        boolean[] entered = new boolean[1];
        inFlight.compute(source, (s, n) -> {
            int now = n == null ? 0 : n;
            entered[0] = now < limit;
            return entered[0] ? now + 1 : now;
        });
        return entered[0];
    }

    /** The IPv4 address, or the IPv6 address's /64; null without an IP source (in-process): nothing to count by. */
    private static String sourceOf(SocketAddress remote) {
        InetAddress address = remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
        if (address instanceof Inet6Address) {
            return HexFormat.of().formatHex(address.getAddress(), 0, 8) + "/64";
        }
        return address == null ? null : address.getHostAddress();
    }
}
