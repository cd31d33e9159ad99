package dev.sextant.etcd.client;

import dev.sextant.etcd.api.EtcdRpc.LeaseKeepAliveRequest;
import dev.sextant.etcd.api.EtcdRpc.LeaseKeepAliveResponse;
import dev.sextant.etcd.api.LeaseGrpc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Keeps one lease alive over etcd's LeaseKeepAlive, a bidirectional stream: one stream at a time, kept
 * open between renewals, opened at the endpoint that answered last. Each {@link #renew(Duration)} sends
 * one keep-alive and waits for its answer; an endpoint that fails the stream or leaves a keep-alive
 * unanswered loses the stream, which is opened again at the next endpoint, each endpoint at most once per
 * renewal and never beyond the renewal's budget.
 *
 * <p>Not a background renewer: the caller decides when to renew and what a failure means (the duty holder
 * stops holding at once). Its user is one thread; the methods are synchronized only to keep a close from
 * another thread orderly.
 *
 * <p>Streams are opened with etcd's "hasleader" metadata, so a member cut off from its leader ends the
 * stream ("etcdserver: no leader") instead of leaving the keep-alive unanswered.
 */
public final class LeaseKeepAlive implements AutoCloseable {
    private final EndpointChannels channels;
    private final long leaseId;
    private Stream stream;
    private int next;
    private boolean closed;

    LeaseKeepAlive(EndpointChannels channels, long leaseId) {
        this.channels = channels;
        this.leaseId = leaseId;
        this.next = channels.preferred();
    }

    public long leaseId() {
        return leaseId;
    }

    /**
     * Sends one keep-alive and returns etcd's answer: the lease's renewed TTL in seconds, from when etcd
     * received it; <b>0 when etcd has no such lease</b> (it expired or was revoked). Waits at most
     * {@code budget} in all, and at one endpoint at most the client's call timeout.
     *
     * @throws EtcdException "lease keep-alive", naming each endpoint tried and what it did, when no
     *                       endpoint answered within the budget
     */
    public synchronized long renew(Duration budget) {
        if (closed) {
            throw new IllegalStateException("the keep-alive of lease " + leaseId + " is closed");
        }
        long end = System.nanoTime() + budget.toNanos();
        List<String> endpoints = channels.endpoints();
        List<EtcdException.Failure> failures = new ArrayList<>();
        Throwable last = null;
        for (int tried = 0; tried < endpoints.size(); tried++) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            if (stream == null) {
                stream = new Stream(next, endpoints.get(next));
            }
            Stream s = stream;
            long wait = Math.min(left, channels.timeout().toNanos());
            channels.countRoundTrip();
            Object answer;
            try {
                s.requests.onNext(LeaseKeepAliveRequest.newBuilder().setID(leaseId).build());
                answer = s.answers.poll(wait, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                drop("interrupted");
                throw new EtcdException("lease keep-alive", List.of(new EtcdException.Failure(s.endpoint, Status.Code.CANCELLED,
                        "interrupted while waiting for the answer")), e);
            } catch (RuntimeException e) {
                answer = e;
            }
            if (answer instanceof LeaseKeepAliveResponse response && response.getID() == leaseId) {
                channels.answered(s.index);
                return Math.max(0, response.getTTL());
            }
            if (answer == null) {
                failures.add(new EtcdException.Failure(s.endpoint, Status.Code.DEADLINE_EXCEEDED,
                        "no answer within " + TimeUnit.NANOSECONDS.toMillis(wait) + " ms"));
            } else if (answer instanceof Throwable t) {
                StatusRuntimeException e = Status.fromThrowable(t).asRuntimeException();
                failures.add(channels.failure(s.endpoint, e));
                last = t;
            } else {
                failures.add(new EtcdException.Failure(s.endpoint, Status.Code.INTERNAL, "an answer for another lease"));
            }
            // A stream that failed once is not trusted again: an answer arriving late would be taken for
            // the next keep-alive's. The next attempt opens a fresh one at the next endpoint.
            drop("moving to another endpoint");
            next = (s.index + 1) % endpoints.size();
        }
        if (failures.isEmpty()) {
            failures.add(new EtcdException.Failure(endpoints.get(next), Status.Code.DEADLINE_EXCEEDED,
                    "no time left to ask (budget " + budget.toMillis() + " ms)"));
        }
        throw new EtcdException("lease keep-alive", failures, last);
    }

    private void drop(String why) {
        if (stream != null) {
            stream.cancel(why);
            stream = null;
        }
    }

    /** Ends the stream. The lease is left to expire; revoke it with {@link EtcdClient#revokeLease} to free it at once. */
    @Override
    public synchronized void close() {
        closed = true;
        drop("keep-alive closed");
    }

    /** One open LeaseKeepAlive stream at one endpoint, and the answers it brought (responses or the error that ended it). */
    private final class Stream implements StreamObserver<LeaseKeepAliveResponse> {
        final int index;
        final String endpoint;
        final BlockingQueue<Object> answers = new LinkedBlockingQueue<>();
        final StreamObserver<LeaseKeepAliveRequest> requests;

        Stream(int index, String endpoint) {
            this.index = index;
            this.endpoint = endpoint;
            this.requests = LeaseGrpc.newStub(channels.ready(endpoint))
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(EndpointChannels.requireLeader()))
                    .leaseKeepAlive(this);
        }

        @Override
        public void onNext(LeaseKeepAliveResponse response) {
            answers.add(response);
        }

        @Override
        public void onError(Throwable t) {
            answers.add(t);
        }

        @Override
        public void onCompleted() {
            answers.add(Status.UNAVAILABLE.withDescription("etcd ended the keep-alive stream").asRuntimeException());
        }

        void cancel(String why) {
            try {
                requests.onError(Status.CANCELLED.withDescription(why).asRuntimeException());
            } catch (RuntimeException alreadyEnded) {
                // nothing left to cancel
            }
        }
    }
}
