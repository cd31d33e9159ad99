package dev.sextant.nodeboot.verify;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import com.google.protobuf.ByteString;
import dev.sextant.housekeeping.discovery.DiscoveryResume;
import dev.sextant.keys.member.CertificateRenewal;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.proto.v1.RenewMemberCertificateRequest;
import dev.sextant.proto.v1.RenewMemberCertificateResponse;
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
 *
 * <p>The answer also carries the member certificate this node's discovery signs with, which the
 * re-attestation holder renews after a successful round ({@code RenewMemberCertificate}). Any caller may
 * send a renewal too, attested or not, as for {@code GetAttestation}: the discovery CA's signature is the
 * authority, not the caller. A caller without the CA can offer only certificates the CA signed before,
 * and a renewal must certify this node's own key, name, role and cluster and end later than the one it
 * holds ({@link CertificateRenewal}), so replaying an earlier one changes nothing and no caller can change
 * who this node is. Whoever holds the CA holds the cluster's identities anyway. What remains is a renewal
 * the holder sent that a relay could hold back, which only shortens the node's identity, as dropping the
 * round would.
 */
@Singleton
public final class VerifyEndpoint extends VerifyServiceGrpc.VerifyServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(VerifyEndpoint.class);
    static final int NONCE_BYTES = 32;
    private static final byte[] NO_USER_DATA = new byte[0];

    private final Attester attester;
    private final DiscoveryResume discovery;

    public VerifyEndpoint(Attester attester, DiscoveryResume discovery) {
        this.attester = attester;
        this.discovery = discovery;
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
            GetAttestationResponse.Builder answer = GetAttestationResponse.newBuilder().setAttestation(document);
            discovery.memberCertificate().ifPresent(c -> answer.setMemberCertificate(ByteString.copyFrom(c)));
            response.onNext(answer.build());
            response.onCompleted();
        } catch (AttestationException e) {
            // The detail names TPM internals (NV indices, TPM return codes): the log gets it, the caller does not.
            LOG.error("Attestation failed: {}", e.getMessage());
            response.onError(Status.UNAVAILABLE.withDescription("the node cannot produce an attestation right now")
                    .asRuntimeException());
        }
    }

    @Override
    public void renewMemberCertificate(RenewMemberCertificateRequest request,
                                       StreamObserver<RenewMemberCertificateResponse> response) {
        if (request.getMemberCertificate().isEmpty()) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("member_certificate is empty").asRuntimeException());
            return;
        }
        try {
            MemberCertificate renewed = discovery.renewCertificate(request.getMemberCertificate().toByteArray());
            LOG.info("member certificate of {} renewed, valid until {}", renewed.nodeName(), renewed.notAfter());
            response.onNext(RenewMemberCertificateResponse.getDefaultInstance());
            response.onCompleted();
        } catch (CertificateRenewal.Refused refused) {
            LOG.warn("refused a member certificate renewal: {}", refused.getMessage());
            Status status = refused.kind() == CertificateRenewal.Kind.NOT_THIS_MEMBER ? Status.PERMISSION_DENIED
                    : Status.INVALID_ARGUMENT;
            response.onError(status.withDescription(refused.getMessage()).asRuntimeException());
        } catch (IllegalStateException e) {
            response.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
        }
    }
}
