package dev.sextant.joinapi.reattest;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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

    private SwtpmNode(Swtpm tpm) throws Exception {
        this.tpm = tpm;
        this.attester = new TpmAttester(tpm.client(), Path.of("/nonexistent/event-log"));
        this.server = AtlsServers.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)),
                        AtlsContexts.server(OwnAttestation.by(attester), ClientVerification.anonymous()), HandshakeLimits.defaults())
                .addService(new Endpoint()).build().start();
    }

    /** A provisioned swtpm whose PCR 15 carries {@code clusterId}'s mark, as a member's does after its node lock. */
    public static SwtpmNode member(byte[] clusterId) throws Exception {
        Swtpm tpm = Swtpm.provisioned();
        try {
            tpm.client().pcr().event(ClusterEvidence.CLUSTER_ID_PCR, clusterId);
            return new SwtpmNode(tpm);
        } catch (Exception e) {
            tpm.close();
            throw e;
        }
    }

    /** A member's swtpm after a reboot, before its rejoin and node lock: PCR 15 still zero. */
    public static SwtpmNode rebooting() throws Exception {
        Swtpm tpm = Swtpm.provisioned();
        try {
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

    /** From now on GetAttestation returns the document it gave for an earlier nonce (a replay), the handshake stays genuine. */
    public void replayOldAnswers() throws AttestationException {
        byte[] earlier = new byte[32];
        earlier[0] = 1;
        replayed.set(attester.attest(Purpose.VERIFY, earlier, new byte[0]));
    }

    @Override
    public void close() throws Exception {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        tpm.close();
    }

    private final class Endpoint extends VerifyServiceGrpc.VerifyServiceImplBase {
        @Override
        public void getAttestation(GetAttestationRequest request, StreamObserver<GetAttestationResponse> response) {
            if (request.getNonce().size() != 32) {
                response.onError(Status.INVALID_ARGUMENT.withDescription("nonce must be 32 bytes").asRuntimeException());
                return;
            }
            try {
                AttestationDocument document = replayed.get() != null ? replayed.get()
                        : attester.attest(Purpose.VERIFY, request.getNonce().toByteArray(), new byte[0]);
                response.onNext(GetAttestationResponse.newBuilder().setAttestation(document).build());
                response.onCompleted();
            } catch (AttestationException e) {
                response.onError(Status.UNAVAILABLE.withDescription("no attestation").asRuntimeException());
            }
        }
    }
}
