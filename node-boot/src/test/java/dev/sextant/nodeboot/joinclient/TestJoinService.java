package dev.sextant.nodeboot.joinclient;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import dev.sextant.proto.v1.K3sJoin;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberRole;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small JoinService for tests (the real one is in join-api): client-attested aTLS, so a node
 * whose quote fails {@code verifier} never reaches a method; it attests itself when given an
 * attester. Join tickets carry a k3s plan; rejoin tickets carry {@link #rejoinKey} while it is set,
 * and are refused (PERMISSION_DENIED) otherwise.
 */
public final class TestJoinService extends JoinServiceGrpc.JoinServiceImplBase implements AutoCloseable {
    public static final byte[] STATE_DISK_KEY = filled(0x5d);
    public static final byte[] MEASUREMENT_SECRET = filled(0x4d);
    public static final byte[] MEASUREMENT_SALT = filled(0x53);
    public static final byte[] DISCOVERY_KEY = filled(0x44);
    /** Seed of this service's discovery CA (the real one derives it from the master secret). */
    public static final byte[] DISCOVERY_CA_SEED = filled(0x43);
    /** The cluster's join service role key (the real one derives it from the master secret, which this service lacks). */
    public static final dev.sextant.keys.role.JoinServiceRoleKey ROLE_KEY =
            dev.sextant.keys.role.JoinServiceRoleKey.of(filled(0x4b), filled(0x4c));

    public final AtomicInteger refusedHandshakes = new AtomicInteger();
    public final List<IssueJoinTicketRequest> requests = new CopyOnWriteArrayList<>();
    public final List<IssueRejoinTicketRequest> rejoinRequests = new CopyOnWriteArrayList<>();
    /** What a rejoin ticket carries as the disk key; null: rejoin is refused. */
    public volatile byte[] rejoinKey;
    /**
     * The revocation's reason code (OPERATOR, ...) while this service refuses joins and rejoins as the real one refuses a
     * revoked AK's: PERMISSION_DENIED, the refusal code REVOKED and the reason code in the trailers; null: it does not.
     */
    public volatile String revokedFor;
    private final Server server;

    public TestJoinService(Attester attesterOrNull, AttestationVerifier verifier) throws IOException {
        this(attesterOrNull, verifier, 0);
    }

    /** On {@code port} (0: any), so a test can stop the service and start it again where nodes look for it. */
    public TestJoinService(Attester attesterOrNull, AttestationVerifier verifier, int port) throws IOException {
        this(attesterOrNull == null ? OwnAttestation.none() : OwnAttestation.by(attesterOrNull), verifier, port);
    }

    /** Presenting {@code own} (a control plane's: {@link OwnAttestation#proving} its join service role). */
    public static TestJoinService presenting(OwnAttestation own, AttestationVerifier verifier) throws IOException {
        return new TestJoinService(own, verifier, 0);
    }

    private TestJoinService(OwnAttestation own, AttestationVerifier verifier, int port) throws IOException {
        AttestationVerifier counting = (document, purpose, nonce, userData) -> {
            try {
                return verifier.verify(document, purpose, nonce, userData);
            } catch (AttestationRejected e) {
                refusedHandshakes.incrementAndGet();
                throw e;
            }
        };
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                .sslContext(AtlsContexts.server(own, ClientVerification.by(counting)))
                .addService(this).build().start();
    }

    public Endpoint endpoint() {
        return new Endpoint("127.0.0.1", server.getPort());
    }

    /** The ticket this service hands out; a test may change it. */
    public static IssueJoinTicketResponse ticket() {
        return IssueJoinTicketResponse.newBuilder()
                .setStateDiskKey(ByteString.copyFrom(STATE_DISK_KEY))
                .setMeasurementSecret(ByteString.copyFrom(MEASUREMENT_SECRET))
                .setMeasurementSalt(ByteString.copyFrom(MEASUREMENT_SALT))
                .setDiscoveryKey(ByteString.copyFrom(DISCOVERY_KEY))
                .setJoinServiceRoleKey(ByteString.copyFrom(ROLE_KEY.publicKey()))
                .setK3S(K3sJoin.newBuilder().setServerUrl("https://127.0.0.1:6443").setToken("K10cafe::abcdef.0123456789abcdef"))
                .build();
    }

    /** What {@link #issueJoinTicket} answers. */
    public volatile IssueJoinTicketResponse ticket = ticket();
    /** Name and role the member certificate names; null: the requester's own, as the real join service certifies. */
    private volatile String certifiedName;
    private volatile MemberRole certifiedRole;

    /** From now on, certifies each requester's key under {@code name} and {@code role} (a hostile or broken service). */
    public void certifyAs(String name, MemberRole role) {
        certifiedName = name;
        certifiedRole = role;
    }

    @Override
    public void issueJoinTicket(IssueJoinTicketRequest request, StreamObserver<IssueJoinTicketResponse> response) {
        requests.add(request);
        if (revokedFor != null) {
            response.onError(revoked(revokedFor));
            return;
        }
        IssueJoinTicketResponse answer = ticket;
        // Certifies the requester's key as the real join service does, unless a test put its own certificate in.
        if (answer.getMemberCertificate().isEmpty() && !request.getDiscoveryPublicKey().isEmpty()) {
            DiscoveryCa ca = new DiscoveryCa(DISCOVERY_CA_SEED);
            String name = certifiedName == null ? request.getNodeName() : certifiedName;
            MemberRole role = certifiedRole != null ? certifiedRole
                    : request.getControlPlane() ? MemberRole.CONTROL_PLANE : MemberRole.WORKER;
            answer = answer.toBuilder().setDiscoveryCaPublicKey(ByteString.copyFrom(ca.publicKey()))
                    .setMemberCertificate(ByteString.copyFrom(ca.certifyMember(request.getDiscoveryPublicKey().toByteArray(),
                            name, role,
                            KeyDerivation.clusterId(MEASUREMENT_SECRET, MEASUREMENT_SALT), Instant.now(), Duration.ofDays(1))))
                    .build();
        }
        response.onNext(answer);
        response.onCompleted();
    }

    @Override
    public void issueRejoinTicket(IssueRejoinTicketRequest request, StreamObserver<IssueRejoinTicketResponse> response) {
        rejoinRequests.add(request);
        String revoked = revokedFor;
        if (revoked != null) {
            response.onError(revoked(revoked));
            return;
        }
        byte[] key = rejoinKey;
        if (key == null) {
            response.onError(Status.PERMISSION_DENIED.withDescription("disk " + request.getDiskUuid()
                    + " is not bound to this AK").asRuntimeException());
            return;
        }
        response.onNext(IssueRejoinTicketResponse.newBuilder().setStateDiskKey(ByteString.copyFrom(key)).build());
        response.onCompleted();
    }

    /** The real join service's refusal of a revoked AK: PERMISSION_DENIED, REVOKED and the reason code in the trailers. */
    private static io.grpc.StatusRuntimeException revoked(String reason) {
        io.grpc.Metadata trailers = new io.grpc.Metadata();
        trailers.put(dev.sextant.grpcsupport.Refusal.REASON_KEY, "REVOKED");
        trailers.put(dev.sextant.grpcsupport.Refusal.DETAIL_KEY, reason);
        return Status.PERMISSION_DENIED.withDescription("node node-0 was revoked at 2026-11-28T06:00:00Z: " + reason
                + "; the machine may come back only as a new machine (a new TPM)").asRuntimeException(trailers);
    }

    @Override
    public void close() {
        server.shutdownNow();
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
