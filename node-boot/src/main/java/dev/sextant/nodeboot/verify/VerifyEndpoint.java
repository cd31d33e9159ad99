package dev.sextant.nodeboot.verify;

import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a caller's nonce with a fresh attestation document. Plain gRPC is enough: the document
 * itself is the proof, bound to the caller's nonce.
 */
@Singleton
public final class VerifyEndpoint extends VerifyServiceGrpc.VerifyServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(VerifyEndpoint.class);
    static final int NONCE_BYTES = 32;
    static final int MAX_USER_DATA = 64;

    private final Attester attester;

    public VerifyEndpoint(Attester attester) {
        this.attester = attester;
    }

    @Override
    public void getAttestation(GetAttestationRequest request, StreamObserver<GetAttestationResponse> response) {
        if (request.getNonce().size() != NONCE_BYTES) {
            response.onError(Status.INVALID_ARGUMENT
                    .withDescription("nonce must be " + NONCE_BYTES + " bytes, got " + request.getNonce().size())
                    .asRuntimeException());
            return;
        }
        if (request.getUserData().size() > MAX_USER_DATA) {
            response.onError(Status.INVALID_ARGUMENT
                    .withDescription("user_data must be at most " + MAX_USER_DATA + " bytes, got "
                            + request.getUserData().size())
                    .asRuntimeException());
            return;
        }
        try {
            var document = attester.attest(request.getNonce().toByteArray(), request.getUserData().toByteArray());
            response.onNext(GetAttestationResponse.newBuilder().setAttestation(document).build());
            response.onCompleted();
        } catch (AttestationException e) {
            LOG.error("Attestation failed: {}", e.getMessage());
            response.onError(Status.UNAVAILABLE.withDescription("attestation failed: " + e.getMessage())
                    .asRuntimeException());
        }
    }
}
