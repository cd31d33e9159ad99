package dev.sextant.cli.recover;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.cli.remote.AttestedChannel;
import dev.sextant.cli.remote.ConnectionFailures;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.cli.failure.GrpcStatusWords;
import dev.sextant.proto.v1.RecoverRequest;
import dev.sextant.proto.v1.RecoverResponse;
import dev.sextant.proto.v1.RecoveryServiceGrpc;
import dev.sextant.proto.v1.RecoveryStatusRequest;
import dev.sextant.proto.v1.RecoveryStatusResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;

/**
 * One connection to a node's recovery port: the node is verified in the aTLS handshake before any
 * request leaves (a node that does not verify gets nothing, not even the Status question); then
 * Status, and only when the node's disk waits for its key and the machine is the one the cluster record
 * names for that disk, that disk's key (never the master secret).
 */
final class RecoveryAttempt {
    private final NodeEndpoint endpoint;
    private final AttestationVerifier verifier;
    private final DiskKeys keys;
    private final KeyRecipients recipients;
    private final Duration callTimeout;
    private final Consumer<String> progress;

    RecoveryAttempt(NodeEndpoint endpoint, AttestationVerifier verifier, DiskKeys keys, KeyRecipients recipients,
                    Duration callTimeout, Consumer<String> progress) {
        this.endpoint = endpoint;
        this.verifier = verifier;
        this.keys = keys;
        this.recipients = recipients;
        this.callTimeout = callTimeout;
        this.progress = progress;
    }

    RecoveryOutcome run() throws SSLException {
        try (AttestedChannel node = new AttestedChannel(endpoint, verifier)) {
            RecoveryServiceGrpc.RecoveryServiceBlockingStub stub = RecoveryServiceGrpc.newBlockingStub(node.channel());
            RecoveryStatusResponse status;
            try {
                status = stub.withDeadlineAfter(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
                        .status(RecoveryStatusRequest.getDefaultInstance());
            } catch (StatusRuntimeException e) {
                return node.rejection().<RecoveryOutcome>map(RecoveryOutcome.Rejected::new).orElseGet(() -> failed(e));
            }
            String uuid = status.getDiskUuid();
            if (!DiskKeys.DISK_UUID.matcher(uuid).matches()) {
                return new RecoveryOutcome.Refused("the node reported a disk UUID that is none (\""
                        + printable(uuid) + "\"); no key was derived or sent");
            }
            if (!status.getWaiting()) {
                return new RecoveryOutcome.NotWaiting(uuid);
            }
            Optional<String> refusal = recipients.refusal(uuid, node.verified().orElseThrow().akName());
            if (refusal.isPresent()) {
                return new RecoveryOutcome.Refused(refusal.get());
            }
            progress.accept("node verified over attested TLS; its state disk " + uuid + " waits for its key: sending it");
            byte[] key = keys.forDisk(uuid);
            RecoverResponse opened;
            try {
                opened = stub.withDeadlineAfter(callTimeout.toMillis(), TimeUnit.MILLISECONDS).recover(RecoverRequest
                        .newBuilder().setStateDiskKey(ByteString.copyFrom(key)).setDiskUuid(uuid).build());
            } catch (StatusRuntimeException e) {
                return failed(e);
            } finally {
                Arrays.fill(key, (byte) 0);
            }
            if (!opened.getDiskUuid().equals(uuid)) {
                return new RecoveryOutcome.Refused("the node answered for disk \"" + printable(opened.getDiskUuid())
                        + "\", not for " + uuid + ", the disk it asked the key for");
            }
            return new RecoveryOutcome.Opened(uuid, printable(opened.getSince()));
        }
    }

    /** Transport trouble is worth another try; any other answer of a verified node is its refusal. */
    private RecoveryOutcome failed(StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED) {
            return new RecoveryOutcome.Unreachable(ConnectionFailures.describe(endpoint, e, callTimeout).getMessage());
        }
        return new RecoveryOutcome.Refused("the node " + GrpcStatusWords.describe(e.getStatus()));
    }

    /** What the node says is untrusted text for the terminal: no control sequences, bounded length. */
    private static String printable(String text) {
        String clean = text.replaceAll("\\p{Cntrl}", "?");
        return clean.length() <= 80 ? clean : clean.substring(0, 79) + "…";
    }
}
