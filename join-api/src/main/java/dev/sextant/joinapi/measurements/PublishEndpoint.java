package dev.sextant.joinapi.measurements;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.proto.v1.MeasurementsServiceGrpc;
import dev.sextant.proto.v1.PublishResponse;
import dev.sextant.proto.v1.SignedMeasurements;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gRPC MeasurementsService on the join service's port: maps {@code Publish} to {@link SetPublisher} and
 * refusals to status codes. It asks nothing of the caller: the set's signature by the pinned key is the
 * authorisation, so whoever relays a signed set can publish only what the operator signed.
 */
@Singleton
public class PublishEndpoint extends MeasurementsServiceGrpc.MeasurementsServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(PublishEndpoint.class);

    private final SetPublisher publisher;

    public PublishEndpoint(SetPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void publish(SignedMeasurements request, StreamObserver<PublishResponse> responses) {
        try {
            SetPublisher.Published published = publisher.publish(new SignedSet(request.getJson().toByteArray(),
                    request.getSignature().toStringUtf8()));
            responses.onNext(PublishResponse.newBuilder().setVersion(published.version())
                    .addAllImageVersions(published.imageVersions()).addAllNewlyRetired(published.newlyRetired()).build());
            responses.onCompleted();
        } catch (Refusal r) {
            if (r.isServerSide()) {
                LOG.warn("publish refused ({}): {}", r.reason().tag(), r.getMessage(), r.getCause());
            } else {
                LOG.info("publish refused ({}): {}", r.reason().tag(), r.getMessage());
            }
            responses.onError(r.toStatus());
        }
    }
}
