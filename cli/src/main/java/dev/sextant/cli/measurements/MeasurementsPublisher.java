package dev.sextant.cli.measurements;

import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.remote.AttestedChannel;
import dev.sextant.cli.remote.ConnectionFailures;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.proto.v1.MeasurementsServiceGrpc;
import dev.sextant.proto.v1.PublishResponse;
import dev.sextant.proto.v1.SignedMeasurements;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Publishes a signed set at one join service ({@code MeasurementsService.Publish}), the service verified in
 * the handshake by the verifier the caller chose: what {@code sextant measurements publish} and
 * {@code sextant upgrade image} share. The join service's refusal of the set is a {@link CliFailure} naming
 * it; a service that fails verification never receives the set.
 */
public final class MeasurementsPublisher {
    /** What the join service says about the set itself: the operator's to fix, not a connection problem. */
    private static final Set<Status.Code> REFUSALS = Set.of(Status.Code.INVALID_ARGUMENT, Status.Code.PERMISSION_DENIED,
            Status.Code.FAILED_PRECONDITION);

    private final NodeEndpoint endpoint;
    private final Duration timeout;

    public MeasurementsPublisher(NodeEndpoint endpoint, Duration timeout) {
        this.endpoint = endpoint;
        this.timeout = timeout;
    }

    /** The outcome: published (with what the service says and the image it was verified on), or the service rejected. */
    public sealed interface Outcome permits Published, ServiceRejected {
    }

    public record Published(PublishResponse response, String serviceImageVersion, NodeEndpoint endpoint) implements Outcome {
        /** What the operator reads: the version, the images admitted, and what was retired now. */
        public List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add("published measurement set version " + response.getVersion() + " at " + endpoint
                    + " (join service verified on image " + serviceImageVersion + ")");
            lines.add("images  " + String.join(", ", response.getImageVersionsList()));
            if (response.getNewlyRetiredCount() > 0) {
                lines.add("retired " + String.join(", ", response.getNewlyRetiredList()));
            }
            return lines;
        }
    }

    public record ServiceRejected(AttestationRejected rejection) implements Outcome {
    }

    /** Publishes {@code signed} (its key is not sent: the service verifies with the cluster's pin). */
    public Outcome publish(SignedMeasurements signed, AttestationVerifier serviceVerifier) throws SSLException {
        try (AttestedChannel service = new AttestedChannel(endpoint, serviceVerifier)) {
            PublishResponse published;
            try {
                published = MeasurementsServiceGrpc.newBlockingStub(service.channel()).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .publish(signed.toBuilder().clearPublicKeyPem().build());
            } catch (StatusRuntimeException e) {
                if (service.rejection().isPresent()) {
                    return new ServiceRejected(service.rejection().get());
                }
                if (REFUSALS.contains(e.getStatus().getCode())) {
                    throw new CliFailure("the join service at " + endpoint + " refused the set (" + e.getStatus().getCode() + "): "
                            + e.getStatus().getDescription());
                }
                throw ConnectionFailures.describe(endpoint, e, timeout);
            }
            return new Published(published, service.verified().orElseThrow().imageVersion(), endpoint);
        }
    }
}
