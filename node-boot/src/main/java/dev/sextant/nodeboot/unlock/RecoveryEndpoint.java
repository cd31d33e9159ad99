package dev.sextant.nodeboot.unlock;

import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.proto.v1.RecoverRequest;
import dev.sextant.proto.v1.RecoverResponse;
import dev.sextant.proto.v1.RecoveryServiceGrpc;
import dev.sextant.proto.v1.RecoveryStatusRequest;
import dev.sextant.proto.v1.RecoveryStatusResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/**
 * RecoveryService: the operator, having verified this node in the aTLS handshake, sends the key
 * its CLI derived from the master secret for this disk's UUID. The caller is not authenticated
 * (anyone who reaches the port may call): what it can get is a refusal, or, with the one right key,
 * the disk opened, which only the key's holder could do anyway. The node never receives the master
 * secret, and a wrong key changes nothing.
 */
public final class RecoveryEndpoint extends RecoveryServiceGrpc.RecoveryServiceImplBase {
    private static final int KEY_BYTES = 32;

    private final DiskUnlocker unlocker;

    public RecoveryEndpoint(DiskUnlocker unlocker) {
        this.unlocker = unlocker;
    }

    @Override
    public void status(RecoveryStatusRequest request, StreamObserver<RecoveryStatusResponse> response) {
        String uuid = unlocker.waitingFor();
        response.onNext(RecoveryStatusResponse.newBuilder().setWaiting(uuid != null).setDiskUuid(uuid == null ? "" : uuid).build());
        response.onCompleted();
    }

    @Override
    public void recover(RecoverRequest request, StreamObserver<RecoverResponse> response) {
        if (request.getStateDiskKey().size() != KEY_BYTES) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("state_disk_key has " + request.getStateDiskKey().size()
                    + " bytes, not " + KEY_BYTES).asRuntimeException());
            return;
        }
        try {
            NodeState state = unlocker.open(request.getDiskUuid(), request.getStateDiskKey().toByteArray(), Via.RECOVERY);
            response.onNext(RecoverResponse.newBuilder().setDiskUuid(request.getDiskUuid()).setSince(state.since()).build());
            response.onCompleted();
        } catch (UnlockRefused e) {
            Status status = switch (e.kind()) {
                case NOT_WAITING -> Status.FAILED_PRECONDITION;
                case BUSY -> Status.UNAVAILABLE;
                case WRONG_DISK -> Status.INVALID_ARGUMENT;
                case WRONG_KEY -> Status.PERMISSION_DENIED;
                case BROKEN -> Status.INTERNAL;
            };
            response.onError(status.withDescription(e.getMessage()).asRuntimeException());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.onError(Status.ABORTED.withDescription("node is shutting down").asRuntimeException());
        }
    }
}
