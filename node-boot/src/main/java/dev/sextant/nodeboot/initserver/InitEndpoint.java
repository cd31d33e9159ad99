package dev.sextant.nodeboot.initserver;

import com.google.protobuf.ByteString;
import dev.sextant.proto.v1.InitFailure;
import dev.sextant.proto.v1.InitProgress;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;

/**
 * InitService on the first node. The init secret is checked first, so a caller without it learns
 * nothing: PERMISSION_DENIED, no progress, no journal (Constellation sent its journal to anyone).
 * After that the stream carries progress, then exactly one success, or one failure plus the journal.
 */
@Singleton
public final class InitEndpoint extends InitServiceGrpc.InitServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(InitEndpoint.class);

    private final InitSettings settings;
    private final InitFlow flow;
    private final JournalSource journal;
    private final BootstrapStatus status;
    private final StateDisk disk;

    public InitEndpoint(InitSettings settings, InitFlow flow, JournalSource journal, BootstrapStatus status, StateDisk disk) {
        this.disk = disk;
        this.settings = settings;
        this.status = status;
        this.flow = flow;
        this.journal = journal;
    }

    @Override
    public void init(InitRequest request, StreamObserver<InitResponse> response) {
        InitSecretHash expected;
        try {
            expected = InitSecretHash.read(settings.secretHashFile());
        } catch (IOException e) {
            LOG.error("Init refused: no usable init secret hash at {}: {}", settings.secretHashFile(), e.getMessage());
            response.onError(Status.UNAVAILABLE.withDescription("this node has no init secret hash").asRuntimeException());
            return;
        }
        if (!expected.matches(request.getInitSecret().toByteArray())) {
            LOG.warn("Init refused: wrong init secret");
            response.onError(Status.PERMISSION_DENIED.withDescription("wrong init secret").asRuntimeException());
            return;
        }
        // Init is one-shot: a member's disk is unlocked at boot (rejoin or recovery), never initialized again.
        try {
            if (disk.holdsInitializedCluster()) {
                LOG.warn("Init refused: the state disk already holds an initialized cluster disk");
                response.onError(Status.FAILED_PRECONDITION.withDescription("this node's state disk already holds an"
                        + " initialized cluster disk: init runs once per node; a rebooted member comes back by rejoin or"
                        + " recovery").asRuntimeException());
                return;
            }
        } catch (DiskCryptException e) {
            LOG.error("Init refused: cannot read the state disk: {}", e.getMessage());
            response.onError(Status.FAILED_PRECONDITION.withDescription("this node cannot read its state disk's header,"
                    + " so it cannot tell whether it was initialized before").asRuntimeException());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.onError(Status.ABORTED.withDescription("node is shutting down").asRuntimeException());
            return;
        }
        List<String> problems = InitRequestValidator.problems(request);
        if (!problems.isEmpty()) {
            response.onError(Status.INVALID_ARGUMENT.withDescription(String.join("; ", problems)).asRuntimeException());
            return;
        }
        try {
            InitFlow.Outcome outcome = flow.run(request, (step, detail) -> response.onNext(InitResponse.newBuilder()
                    .setProgress(InitProgress.newBuilder().setStep(step).setDetail(detail)).build()));
            response.onNext(InitResponse.newBuilder().setSuccess(outcome.success()).build());
            response.onCompleted();
            LOG.info("Init done");
            status.bootstrapped(outcome.bootstrapped());
        } catch (InitFailedException e) {
            LOG.error("Init failed: {}", e.getMessage());
            failWithJournal(response, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.onError(Status.ABORTED.withDescription("node is shutting down").asRuntimeException());
        }
    }

    private void failWithJournal(StreamObserver<InitResponse> response, String error) {
        response.onNext(InitResponse.newBuilder().setFailure(InitFailure.newBuilder().setError(error)).build());
        try {
            journal.stream(chunk -> response.onNext(InitResponse.newBuilder()
                    .setJournalChunk(ByteString.copyFrom(chunk)).build()));
        } catch (IOException e) {
            LOG.warn("Could not read the journal for the operator: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        response.onCompleted();
    }
}
