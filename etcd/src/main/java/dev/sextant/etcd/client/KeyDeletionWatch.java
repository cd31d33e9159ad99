package dev.sextant.etcd.client;

import com.google.protobuf.ByteString;
import dev.sextant.etcd.api.EtcdKv.Event;
import dev.sextant.etcd.api.EtcdRpc.WatchCreateRequest;
import dev.sextant.etcd.api.EtcdRpc.WatchRequest;
import dev.sextant.etcd.api.EtcdRpc.WatchResponse;
import dev.sextant.etcd.api.WatchGrpc;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;

/**
 * A one-shot watch for the deletion of one key, over one Watch stream at the endpoint that answered
 * last (with etcd's "hasleader" metadata, so a member that loses its leader ends it). It ends at the
 * first deletion (after telling its owner), at a stream error, when etcd cancels it (a compacted start
 * revision) or when closed; it never moves to another endpoint by itself.
 */
public final class KeyDeletionWatch implements AutoCloseable {
    private final StreamObserver<WatchRequest> requests;
    private final Runnable onDeleted;
    private volatile boolean active = true;

    KeyDeletionWatch(EndpointChannels channels, ByteString key, long fromRevision, Runnable onDeleted) {
        this.onDeleted = onDeleted;
        String endpoint = channels.endpoints().get(channels.preferred());
        channels.countRoundTrip();
        this.requests = WatchGrpc.newStub(channels.ready(endpoint))
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(EndpointChannels.requireLeader()))
                .watch(new Answers());
        requests.onNext(WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder()
                .setKey(key).setStartRevision(Math.max(1, fromRevision))
                .addFilters(WatchCreateRequest.FilterType.NOPUT)).build());
    }

    /** Whether the watch still waits for the deletion: no deletion seen, no failure, not closed. */
    public boolean active() {
        return active;
    }

    @Override
    public void close() {
        if (active) {
            active = false;
            try {
                requests.onError(Status.CANCELLED.withDescription("watch closed").asRuntimeException());
            } catch (RuntimeException alreadyEnded) {
                // nothing to cancel
            }
        }
    }

    private final class Answers implements StreamObserver<WatchResponse> {
        @Override
        public void onNext(WatchResponse response) {
            if (response.getCanceled() || response.getCompactRevision() > 0) {
                close();
                return;
            }
            for (Event event : response.getEventsList()) {
                if (event.getType() == Event.EventType.DELETE && active) {
                    close();
                    onDeleted.run();
                    return;
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            active = false;
        }

        @Override
        public void onCompleted() {
            active = false;
        }
    }
}
