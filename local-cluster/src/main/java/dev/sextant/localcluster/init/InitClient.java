package dev.sextant.localcluster.init;

import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitServiceGrpc;
import dev.sextant.proto.v1.InitSuccess;
import io.grpc.Channel;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The operator's init call to a node's init server, for {@code sextant init} and for
 * {@code sextant mini}: sends the request and follows the node's answer, progress as it comes, then
 * exactly one success, or one failure followed by journal chunks. A second outcome is a protocol
 * error, not silently taken. The channel is the caller's: an attested TLS channel to the node, so
 * that nothing is sent to a node that does not verify.
 */
public final class InitClient {
    private final Channel channel;
    private final Duration timeout;

    /** {@code timeout}: how long the whole init may take. */
    public InitClient(Channel channel, Duration timeout) {
        this.channel = channel;
        this.timeout = timeout;
    }

    /**
     * Each progress message of the node goes to {@code progress} as one line {@code [step] detail};
     * a message of a kind this client does not know goes to {@code warnings}.
     *
     * @throws InitFailed when the node reports that init failed (with its journal)
     * @throws StatusRuntimeException when the call fails: refused, or the node not reached or verified
     */
    public InitResult init(InitRequest request, Consumer<String> progress, Consumer<String> warnings) throws InitFailed {
        Answer answer = new Answer(progress, warnings);
        InitServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .init(request).forEachRemaining(answer::accept);
        return answer.result();
    }

    /** The node's stream so far. */
    private static final class Answer {
        private final Consumer<String> progress;
        private final Consumer<String> warnings;
        private final ByteArrayOutputStream journal = new ByteArrayOutputStream();
        private InitSuccess success;
        private String failure;

        Answer(Consumer<String> progress, Consumer<String> warnings) {
            this.progress = progress;
            this.warnings = warnings;
        }

        void accept(InitResponse response) {
            if ((response.hasSuccess() || response.hasFailure()) && (success != null || failure != null)) {
                throw new IllegalStateException("the node sent a second outcome; stream is broken");
            }
            switch (response.getKindCase()) {
                case PROGRESS -> progress.accept("[" + response.getProgress().getStep() + "] "
                        + response.getProgress().getDetail());
                case SUCCESS -> success = response.getSuccess();
                case FAILURE -> failure = response.getFailure().getError();
                case JOURNAL_CHUNK -> journal.writeBytes(response.getJournalChunk().toByteArray());
                default -> warnings.accept("warning: ignoring an init message of an unknown kind");
            }
        }

        InitResult result() throws InitFailed {
            if (failure != null) {
                throw new InitFailed(failure, journal.toByteArray());
            }
            if (success == null) {
                throw new IllegalStateException("the node closed the stream without a result");
            }
            return new InitResult(success.getClusterId().toByteArray(), success.getKubeconfig().isEmpty()
                    ? Optional.empty() : Optional.of(success.getKubeconfig().toStringUtf8()), success.getStateDiskUuid());
        }
    }
}
