package dev.sextant.joinapi.reattest;

import com.google.protobuf.ByteString;
import dev.sextant.keys.member.CertificateRenewal;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.proto.v1.RenewMemberCertificateRequest;
import dev.sextant.proto.v1.RenewMemberCertificateResponse;
import java.time.Instant;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.AtlsServers;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.HandshakeLimits;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import java.util.SortedMap;
import java.util.TreeMap;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import dev.sextant.tpm.attest.TpmAttester;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A node as the re-attestation duty sees it: a real (swtpm) TPM behind a VerifyService on a real port,
 * served over server-attested TLS the way node-boot's bootstrapper serves it on 7443 (its
 * {@code VerifyEndpoint}: {@code attest(VERIFY, nonce, no user data)}), so the join service's client
 * code runs unchanged against it. node-boot is not a dependency of join-api, hence this small copy of the
 * endpoint's one method. A test can make it answer with an old document instead ({@link #replayOldAnswers}).
 */
public final class SwtpmNode implements AutoCloseable {
    private final Swtpm tpm;
    private final TpmAttester attester;
    private final Server server;
    private final AtomicReference<AttestationDocument> replayed = new AtomicReference<>();
    /** The member credentials its discovery would sign with; null: it holds none. */
    private final AtomicReference<MemberCredentials> member = new AtomicReference<>();
    /** The CPU its VerifyService handlers took (thread CPU, ns) and how many GetAttestation calls it answered: for the bench. */
    private final AtomicLong answerCpuNanos = new AtomicLong();
    private final AtomicLong answers = new AtomicLong();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private SwtpmNode(Swtpm tpm) throws Exception {
        this.tpm = tpm;
        this.attester = new TpmAttester(tpm.client(), Path.of("/nonexistent/event-log"));
        this.server = AtlsServers.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)),
                        AtlsContexts.server(OwnAttestation.by(attester), ClientVerification.anonymous()), HandshakeLimits.defaults())
                .addService(new Endpoint()).build().start();
    }

    /** A provisioned swtpm whose PCR 15 carries {@code clusterId}'s mark, as a member's does after its node lock. */
    public static SwtpmNode member(byte[] clusterId) throws Exception {
        return start(Optional.of(clusterId));
    }

    /** A member's swtpm after a reboot, before its rejoin and node lock: PCR 15 still zero. */
    public static SwtpmNode rebooting() throws Exception {
        return start(Optional.empty());
    }

    private static SwtpmNode start(Optional<byte[]> lockedTo) throws Exception {
        Swtpm tpm = Swtpm.provisioned();
        try {
            if (lockedTo.isPresent()) {
                tpm.client().pcr().event(ClusterEvidence.CLUSTER_ID_PCR, lockedTo.get());
            }
            return new SwtpmNode(tpm);
        } catch (Exception e) {
            tpm.close();
            throw e;
        }
    }

    public String endpoint() {
        return "127.0.0.1:" + server.getPort();
    }

    public String ak() {
        try {
            return HexFormat.of().formatHex(TpmtPublic.parse(attester.akPublic()).name());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public X509Certificate ekCa() {
        return tpm.ca().certificate();
    }

    /** The image's measurements as this TPM shows them before its node lock: every PCR enforced, PCR 15 zero. */
    public Measurements imageMeasurements() throws Exception {
        SortedMap<Integer, ExpectedValue> expected = new TreeMap<>();
        tpm.client().pcr().readAll(TpmAlg.SHA256).forEach((pcr, value) -> expected.put(pcr, new ExpectedValue(value, false)));
        expected.put(ClusterEvidence.CLUSTER_ID_PCR, new ExpectedValue(new byte[32], false));
        return new Measurements(Variant.QEMU_VTPM, expected);
    }

    /** What a changed boot chain or a runtime extend does to a checked PCR. */
    public void extend(int pcr) throws Exception {
        tpm.client().pcr().event(pcr, "something unmeasured ran".getBytes());
    }

    /**
     * Gives this node member credentials, as its join ticket does: its answers carry the certificate, and it
     * takes renewals by the node's own rule ({@link CertificateRenewal}, as node-boot's {@code VerifyEndpoint}).
     */
    public SwtpmNode withMember(MemberCredentials credentials) {
        member.set(credentials);
        return this;
    }

    /** The member credentials it holds now (the newest certificate it took). */
    public MemberCredentials member() {
        return member.get();
    }

    /** From now on GetAttestation returns the document it gave for an earlier nonce (a replay), the handshake stays genuine. */
    public void replayOldAnswers() throws AttestationException {
        byte[] earlier = new byte[32];
        earlier[0] = 1;
        replayed.set(attester.attest(Purpose.VERIFY, earlier, new byte[0]));
    }

    /** Thread CPU (ns) its GetAttestation and RenewMemberCertificate handlers took so far (the quote's wait on swtpm not included). */
    public long answerCpuNanos() {
        return answerCpuNanos.get();
    }

    /** GetAttestation calls answered so far. */
    public long answers() {
        return answers.get();
    }

    @Override
    public void close() throws Exception {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        tpm.close();
    }

    private final class Endpoint extends VerifyServiceGrpc.VerifyServiceImplBase {
        @Override
        public void getAttestation(GetAttestationRequest request, StreamObserver<GetAttestationResponse> response) {
            long cpu = THREADS.getCurrentThreadCpuTime();
            try {
                answer(request, response);
            } finally {
                answerCpuNanos.addAndGet(THREADS.getCurrentThreadCpuTime() - cpu);
                answers.incrementAndGet();
            }
        }

        private void answer(GetAttestationRequest request, StreamObserver<GetAttestationResponse> response) {
            if (request.getNonce().size() != 32) {
                response.onError(Status.INVALID_ARGUMENT.withDescription("nonce must be 32 bytes").asRuntimeException());
                return;
            }
            try {
                AttestationDocument document = replayed.get() != null ? replayed.get()
                        : attester.attest(Purpose.VERIFY, request.getNonce().toByteArray(), new byte[0]);
                GetAttestationResponse.Builder answer = GetAttestationResponse.newBuilder().setAttestation(document);
                MemberCredentials held = member.get();
                if (held != null) {
                    answer.setMemberCertificate(ByteString.copyFrom(held.certificate()));
                }
                response.onNext(answer.build());
                response.onCompleted();
            } catch (AttestationException e) {
                response.onError(Status.UNAVAILABLE.withDescription("no attestation").asRuntimeException());
            }
        }

        @Override
        public void renewMemberCertificate(RenewMemberCertificateRequest request,
                                           StreamObserver<RenewMemberCertificateResponse> response) {
            long cpu = THREADS.getCurrentThreadCpuTime();
            try {
                renew(request, response);
            } finally {
                answerCpuNanos.addAndGet(THREADS.getCurrentThreadCpuTime() - cpu);
            }
        }

        private void renew(RenewMemberCertificateRequest request, StreamObserver<RenewMemberCertificateResponse> response) {
            MemberCredentials held = member.get();
            if (held == null) {
                response.onError(Status.FAILED_PRECONDITION.withDescription("no member certificate").asRuntimeException());
                return;
            }
            try {
                member.set(CertificateRenewal.renew(held, request.getMemberCertificate().toByteArray(), Instant.now()));
                response.onNext(RenewMemberCertificateResponse.getDefaultInstance());
                response.onCompleted();
            } catch (CertificateRenewal.Refused refused) {
                response.onError((refused.kind() == CertificateRenewal.Kind.NOT_THIS_MEMBER ? Status.PERMISSION_DENIED
                        : Status.INVALID_ARGUMENT).withDescription(refused.getMessage()).asRuntimeException());
            }
        }
    }
}
