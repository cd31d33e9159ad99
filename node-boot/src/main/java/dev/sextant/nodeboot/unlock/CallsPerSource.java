package dev.sextant.nodeboot.unlock;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

import dev.sextant.atls.PerSourceLimit;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
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
    private final PerSourceLimit inFlight;

    CallsPerSource(int limit) {
        this.limit = limit;
        this.inFlight = new PerSourceLimit(limit);
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return next.startCall(call, headers); // in-process: no source to count by
        }
        InetAddress source = inet.getAddress();
        if (!inFlight.tryEnter(source)) {
            call.close(Status.RESOURCE_EXHAUSTED.withDescription("more than " + limit + " concurrent recovery calls from"
                    + " one source address; wait for an answer before calling again"), new Metadata());
            return new ServerCall.Listener<>() { };
        }
        AtomicBoolean left = new AtomicBoolean();
        Runnable leave = () -> {
            if (left.compareAndSet(false, true)) {
                inFlight.leave(source);
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
}
