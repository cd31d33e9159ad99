package dev.sextant.nodeboot.attacks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.housekeeping.discovery.DiscoveryResume;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.RenewMemberCertificateRequest;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Attacks on the renewal of a node's member certificate (docs/re-attestation.md, "Short-lived
 * identities"), against the real node-boot gRPC server (VerifyEndpoint behind {@code AttestedServerTls},
 * a swtpm as the node's TPM) whose discovery runs on loopback with a member certificate of an hour. The
 * attacker is any caller of the node's port: like GetAttestation, RenewMemberCertificate takes unattested
 * callers, so what protects the node is the renewal rule alone. Each row checks the node kept the
 * certificate it had (GetAttestation's answer carries it).
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on a node's member certificate renewal: only the CA's later certificate of its own identity is taken")
class CertificateRenewalAttacksTest implements TestPropertyProvider {
    private static final byte[] CLUSTER_ID = random32();
    private final DiscoveryCa ca = new DiscoveryCa(random32());
    private final MemberKey key = MemberKey.generate(new SecureRandom());
    private Swtpm swtpm;
    private Path dir;
    private ManagedChannel channel;

    @Inject
    GrpcEmbeddedServer node;

    @Inject
    DiscoveryResume discovery;

    @Override
    public Map<String, String> getProperties() {
        Swtpm.assumeAvailable();
        try {
            swtpm = Swtpm.provisioned();
            swtpm.releaseClient(); // the node opens its own connection; swtpm serves one at a time
            dir = Files.createTempDirectory("renewal-attacks");
        } catch (Exception e) {
            throw new IllegalStateException("starting swtpm", e);
        }
        return Map.of("sextant.tpm.address", swtpm.tpmArg(), "sextant.tpm.event-log", "/nonexistent",
                "sextant.discovery.gossip.enabled", "true",
                "sextant.discovery.gossip.bind-address", "127.0.0.1",
                "sextant.discovery.gossip.port", String.valueOf(FreePorts.loopback()),
                "sextant.discovery.gossip.hosts-file", "",
                "sextant.discovery.gossip.resume-file", dir.resolve("discovery.key").toString());
    }

    @BeforeAll
    void joinDiscoveryAndConnect() {
        // What BringUp does once the node holds its join ticket: discovery with the member credentials.
        discovery.start(random32(), "worker-0", false, new MemberCredentials(key.privateKey(),
                certificate(key.publicKey(), "worker-0", MemberRole.WORKER, Instant.now(), Duration.ofHours(1)), ca.publicKey()));
        try {
            channel = NettyChannelBuilder.forAddress("127.0.0.1", node.getPort()).sslContext(AtlsContexts.client(
                    OwnAttestation.none(), ServerVerification.insecureAcceptAnyServer())).build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("control: the CA's later certificate of the node's key, name, role and cluster is taken; the next answer and the resume file carry it")
    void genuineRenewalIsTaken() throws Exception {
        byte[] renewed = certificate(key.publicKey(), "worker-0", MemberRole.WORKER, Instant.now(), Duration.ofHours(2));
        renew(renewed);
        assertArrayEquals(renewed, held());
        assertEquals(true, Files.readString(dir.resolve("discovery.key")).contains(java.util.Base64.getEncoder().encodeToString(renewed)),
                "the resume file keeps the renewed certificate for the next process of this boot");
    }

    @Test
    @DisplayName("a renewal signed by another CA (for the node's own key, name, role and cluster, longer) is refused PERMISSION_DENIED: not the CA the node received at join")
    void renewalOfAnotherCa() {
        byte[] forged = new DiscoveryCa(random32()).certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, CLUSTER_ID,
                Instant.now(), Duration.ofDays(3650));
        assertRefused(Status.Code.PERMISSION_DENIED, "renewal refused: member certificate is not signed by this cluster's"
                + " discovery CA (the CA this node received at join)", forged);
    }

    @Test
    @DisplayName("a renewal by the CA for another key, another name or another role is refused PERMISSION_DENIED, naming what differs")
    void renewalOfAnotherIdentity() {
        Instant now = Instant.now();
        Duration longer = Duration.ofDays(1);
        assertRefused(Status.Code.PERMISSION_DENIED, "renewal refused: it certifies another key than this node's certificate",
                certificate(MemberKey.generate(new SecureRandom()).publicKey(), "worker-0", MemberRole.WORKER, now, longer));
        assertRefused(Status.Code.PERMISSION_DENIED, "renewal refused: it certifies another node name (worker-1, not worker-0)"
                + " than this node's certificate", certificate(key.publicKey(), "worker-1", MemberRole.WORKER, now, longer));
        assertRefused(Status.Code.PERMISSION_DENIED, "renewal refused: it certifies another role (CONTROL_PLANE, not WORKER)"
                + " than this node's certificate", certificate(key.publicKey(), "worker-0", MemberRole.CONTROL_PLANE, now, longer));
    }

    @Test
    @DisplayName("a renewal that shortens the node's validity (the CA's own, ending sooner: a replayed older one) is refused INVALID_ARGUMENT: it must end later")
    void renewalThatShortens() {
        byte[] shorter = certificate(key.publicKey(), "worker-0", MemberRole.WORKER, Instant.now(), Duration.ofMinutes(10));
        StatusRuntimeException e = assertRefused(Status.Code.INVALID_ARGUMENT, null, shorter);
        assertEquals(true, e.getStatus().getDescription().contains("not later than this node's certificate"), e.getStatus().getDescription());
    }

    private StatusRuntimeException assertRefused(Status.Code code, String message, byte[] offered) {
        byte[] before = held();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> renew(offered));
        assertEquals(code, e.getStatus().getCode(), e::toString);
        if (message != null) {
            assertEquals(message, e.getStatus().getDescription());
        }
        assertArrayEquals(before, held(), "the node's certificate changed");
        return e;
    }

    private void renew(byte[] certificate) {
        VerifyServiceGrpc.newBlockingStub(channel).renewMemberCertificate(RenewMemberCertificateRequest.newBuilder()
                .setMemberCertificate(ByteString.copyFrom(certificate)).build());
    }

    /** The certificate the node holds, as its GetAttestation answer carries it. */
    private byte[] held() {
        byte[] held = VerifyServiceGrpc.newBlockingStub(channel).getAttestation(GetAttestationRequest.newBuilder()
                .setNonce(ByteString.copyFrom(new byte[32])).build()).getMemberCertificate().toByteArray();
        MemberCertificate.signedBy(held, ca.publicKey()); // the node's own, by the CA
        return held;
    }

    private byte[] certificate(byte[] publicKey, String name, MemberRole role, Instant now, Duration validity) {
        return ca.certifyMember(publicKey, name, role, CLUSTER_ID, now, validity);
    }

    private static byte[] random32() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
