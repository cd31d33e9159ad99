package dev.sextant.nodeboot.verify;

import dev.sextant.attestation.Purpose;
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
 *
 * <p>Any party may call this before proving anything, so it signs nothing the caller chooses but
 * the nonce, and only under {@link Purpose#VERIFY}. A nonce is all a verifier needs here: it
 * proves freshness, and the caller keeps no key of the node's to bind (this is a report, not a
 * channel). Caller-chosen user data under the aTLS qualification let anyone mint the node's aTLS
 * evidence for their own key (a relay); the purpose label refuses that relay in
 * every aTLS verifier, and with no user data there is no key to bind in the first place.
 */
@Singleton
public final class VerifyEndpoint extends VerifyServiceGrpc.VerifyServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(VerifyEndpoint.class);
    static final int NONCE_BYTES = 32;
    private static final byte[] NO_USER_DATA = new byte[0];

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
        try {
            var document = attester.attest(Purpose.VERIFY, request.getNonce().toByteArray(), NO_USER_DATA);
            response.onNext(GetAttestationResponse.newBuilder().setAttestation(document).build());
            response.onCompleted();
        } catch (AttestationException e) {
            // The detail names TPM internals (NV indices, TPM return codes): the log gets it, the caller does not.
            LOG.error("Attestation failed: {}", e.getMessage());
            response.onError(Status.UNAVAILABLE.withDescription("the node cannot produce an attestation right now")
                    .asRuntimeException());
        }
    }
}
