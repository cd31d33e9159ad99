package dev.sextant.joinapi.reattest;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.proto.v1.RenewMemberCertificateRequest;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks one node for its attestation: a fresh 32-byte nonce to its VerifyService's {@code GetAttestation}
 * over server-attested TLS, the client side {@code sextant verify} uses ({@link AtlsContexts#client} with
 * {@link ServerVerification}), the handshake checking the node's aTLS evidence against the same policy
 * as the answer. The handshake's evidence is bound to this connection's ClientHello random, the answer to
 * the nonce; both must come from one AK, or the answer was relayed from another machine. One connection
 * per call, closed after it: no session resumption, no state between rounds.
 *
 * <p>When the answer is the bound AK's verified quote (what {@link EvidenceJudge} judges attested), the
 * node's member certificate is renewed over the same channel ({@link MemberCertificateRenewer}): the
 * connection whose handshake and answer just proved the node, so the renewal reaches that machine's
 * image and no other. A renewal that fails (the node refused it, the call timed out) is logged and
 * changes nothing of the round: the node keeps its certificate until it ends, and the next round tries again.
 */
public final class NodeCall {
    private static final Logger LOG = LoggerFactory.getLogger(NodeCall.class);
    static final int NONCE_BYTES = 32;
    private static final byte[] NO_USER_DATA = new byte[0];

    private final ClusterEvidence policy;
    private final Ecdsa ecdsa;
    private final Duration deadline;
    private final SecureRandom random = new SecureRandom();

    private final Optional<MemberCertificateRenewer> renewer;

    /** Asks without renewing anyone's member certificate. */
    public NodeCall(ClusterEvidence policy, Ecdsa ecdsa, Duration deadline) {
        this(policy, ecdsa, deadline, Optional.empty());
    }

    NodeCall(ClusterEvidence policy, Ecdsa ecdsa, Duration deadline, Optional<MemberCertificateRenewer> renewer) {
        this.policy = policy;
        this.ecdsa = ecdsa;
        this.deadline = deadline;
        this.renewer = renewer;
    }

    public Evidence ask(BoundMachine machine) {
        if (!machine.endpointWellFormed()) {
            return new Evidence.NoAnswer("its endpoint is not host:port");
        }
        AtomicReference<Evidence> handshake = new AtomicReference<>();
        AttestationVerifier recording = (document, purpose, nonce, userData) -> record(handshake, document, purpose, nonce, userData);
        ManagedChannel channel;
        try {
            channel = NettyChannelBuilder.forAddress(machine.host(), machine.port())
                    .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(recording), ecdsa)).build();
        } catch (SSLException | IllegalArgumentException e) {
            return new Evidence.NoAnswer("no aTLS client: " + e.getMessage());
        }
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            random.nextBytes(nonce);
            GetAttestationResponse answer;
            try {
                answer = VerifyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                        .getAttestation(GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(nonce)).build());
            } catch (StatusRuntimeException e) {
                Evidence inHandshake = handshake.get();
                if (inHandshake instanceof Evidence.Rejected) {
                    return inHandshake; // the handshake's evidence was fresh too: its own nonce, this connection's key
                }
                return new Evidence.NoAnswer("no answer from " + machine.endpoint() + ": " + e.getStatus().getCode()
                        + (e.getStatus().getDescription() == null ? "" : " " + brief(e.getStatus().getDescription())));
            }
            Evidence answered = policy.check(answer.getAttestation().toByteArray(), Purpose.VERIFY, nonce, NO_USER_DATA);
            Evidence inHandshake = handshake.get();
            if (!(inHandshake instanceof Evidence.Verified channelAk)) {
                return new Evidence.NoAnswer("the connection to " + machine.endpoint() + " carried no verified attestation");
            }
            String answerAk = answered instanceof Evidence.Verified v ? v.ak()
                    : answered instanceof Evidence.Rejected r ? r.signer().orElse(null) : null;
            if (answerAk != null && !answerAk.equals(channelAk.ak())) {
                return new Evidence.NoAnswer("the answer at " + machine.endpoint() + " came from another AK than the connection's"
                        + " (relayed from another machine)");
            }
            if (answered instanceof Evidence.Verified v && sameAk(v.ak(), machine.boundAk()) && renewer.isPresent()) {
                renew(channel, machine, answer.getMemberCertificate().toByteArray());
            }
            return answered;
        } finally {
            channel.shutdownNow();
        }
    }

    private void renew(ManagedChannel channel, BoundMachine machine, byte[] presented) {
        Optional<MemberCertificateRenewer.Renewal> renewal = renewer.orElseThrow().renewalFor(machine, presented);
        if (renewal.isEmpty()) {
            return;
        }
        try {
            VerifyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                    .renewMemberCertificate(RenewMemberCertificateRequest.newBuilder()
                            .setMemberCertificate(ByteString.copyFrom(renewal.get().encoded())).build());
            LOG.debug("renewed the member certificate of {} until {}", machine.name(), renewal.get().certificate().notAfter());
        } catch (StatusRuntimeException e) {
            LOG.warn("renewing the member certificate of {} failed: {}{}", machine.name(), e.getStatus().getCode(),
                    e.getStatus().getDescription() == null ? "" : " " + brief(e.getStatus().getDescription()));
        }
    }

    private static boolean sameAk(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }

    private AttestedState record(AtomicReference<Evidence> handshake, byte[] document, Purpose purpose, byte[] nonce,
                                 byte[] userData) throws AttestationRejected {
        ClusterEvidence.Checked checked = policy.checked(document, purpose, nonce, userData);
        handshake.set(checked.evidence());
        if (checked.refusal().isPresent()) {
            throw checked.refusal().get();
        }
        return checked.state().orElseThrow();
    }

    /** A status description is the peer's text: short, one line. */
    private static String brief(String text) {
        String cut = text.length() > 160 ? text.substring(0, 160) + "…" : text;
        return cut.replaceAll("\\p{Cntrl}", " ");
    }
}
