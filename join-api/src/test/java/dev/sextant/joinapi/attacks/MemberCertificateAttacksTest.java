package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.binding.BindingKey;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc.JoinServiceBlockingStub;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;

/**
 * Attacks on the member certificate a join ticket carries (the proof discovery records are
 * checked against): the certificate names the key, node name and role bound to the caller's AK,
 * and nothing the caller merely asks for. Every refusal comes before any key is released or
 * anything bound: after a refused first join, no binding in the store names the caller's AK, the
 * disk it asked for or the node name it asked for.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on member certificates issued with join tickets")
class MemberCertificateAttacksTest implements TestPropertyProvider {
    private final TestCluster cluster = new TestCluster();

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Inject
    InMemoryBindingStoreDouble store;

    @Override
    public Map<String, String> getProperties() {
        return cluster.properties();
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    @DisplayName("the ticket's certificate binds the requester's key to the bound node name, the role and the cluster, verifiable with the ticket's CA key")
    void certificateNamesWhatIsBound() throws Exception {
        MemberKey key = MemberKey.generate(new SecureRandom());
        String disk = newUuid();
        IssueJoinTicketResponse ticket = as("cert-owner").issueJoinTicket(join(disk, "worker-cert", key.publicKey(), false));
        MemberCertificate c = MemberCertificate.verify(ticket.getMemberCertificate().toByteArray(),
                ticket.getDiscoveryCaPublicKey().toByteArray(), Instant.now());
        assertArrayEquals(key.publicKey(), c.publicKey());
        assertEquals("worker-cert", c.nodeName());
        assertEquals(MemberRole.WORKER, c.role());
        assertTrue(c.sameCluster(KeyDerivation.clusterId(ticket.getMeasurementSecret().toByteArray(),
                ticket.getMeasurementSalt().toByteArray())));
        // What the refused rows find empty: disk and name to the AK, the AK to its disk, name and role.
        assertEquals(5, bindingsNaming("cert-owner", disk, "worker-cert").size());
    }

    @Test
    @DisplayName("an oversized discovery public key (4 KiB): INVALID_ARGUMENT before anything is bound")
    void oversizedKeyIsRefused() throws Exception {
        String disk = newUuid();
        refused(Status.Code.INVALID_ARGUMENT, "discovery_public_key must be a raw 32-byte Ed25519 public key, got 4096 bytes",
                () -> as("big-key").issueJoinTicket(join(disk, "worker-big", new byte[4096], false)));
        assertEquals(List.of(), bindingsNaming("big-key", disk, "worker-big"));
    }

    @Test
    @DisplayName("a 32-byte discovery public key that is no curve point: INVALID_ARGUMENT before anything is bound")
    void keyOffTheCurveIsRefused() throws Exception {
        String disk = newUuid();
        byte[] notAPoint = new byte[32];
        Arrays.fill(notAPoint, (byte) 0xff); // y = 2^255 - 1, not below the field prime
        refused(Status.Code.INVALID_ARGUMENT, "not an Ed25519 public key",
                () -> as("bad-key").issueJoinTicket(join(disk, "worker-bad", notAPoint, false)));
        assertEquals(List.of(), bindingsNaming("bad-key", disk, "worker-bad"));
    }

    @Test
    @DisplayName("a small-order discovery public key (the identity, which 'verifies' forged signatures): INVALID_ARGUMENT before anything is bound")
    void smallOrderKeyIsRefused() throws Exception {
        String disk = newUuid();
        byte[] identity = new byte[32];
        identity[0] = 1;
        refused(Status.Code.INVALID_ARGUMENT, "not an Ed25519 public key",
                () -> as("weak-key").issueJoinTicket(join(disk, "worker-weak", identity, false)));
        assertEquals(List.of(), bindingsNaming("weak-key", disk, "worker-weak"));
    }

    @Test
    @DisplayName("a machine that joined as a worker asking again as a control plane (to publish the API name): PERMISSION_DENIED, one role per machine, no certificate")
    void workerCannotBecomeControlPlane() throws Exception {
        String disk = newUuid();
        byte[] key = MemberKey.generate(new SecureRandom()).publicKey();
        as("climber").issueJoinTicket(join(disk, "worker-climb", key, false));
        refused(Status.Code.PERMISSION_DENIED, "already joined as worker and may not join as control-plane",
                () -> as("climber").issueJoinTicket(join(disk, "worker-climb", key, true).toBuilder()
                        .setEtcdMember(EtcdPeer.newBuilder().setName("worker-climb").setPeerUrl("https://etcd-worker-climb.internal.test:2380")
                                .setClientUrl("https://etcd-worker-climb.internal.test:2379")).build()));
        assertEquals(Optional.of("worker"), store.lookup(BindingKey.machineRole(HexFormat.of().formatHex(TestCaller.ak("climber")))));
    }

    private JoinServiceBlockingStub as(String machine) {
        return TestCaller.as(channel, TestCaller.ak(machine));
    }

    private static IssueJoinTicketRequest join(String uuid, String node, byte[] key, boolean controlPlane) {
        return IssueJoinTicketRequest.newBuilder().setDiskUuid(uuid).setNodeName(node).setControlPlane(controlPlane)
                .setDiscoveryPublicKey(ByteString.copyFrom(key)).build();
    }

    private static String newUuid() {
        return UUID.randomUUID().toString();
    }

    /**
     * The keys in the store that name this machine's AK, or the disk or node name it asked for, in the
     * key or as the bound value: every kind, forward and reverse.
     */
    private List<String> bindingsNaming(String machine, String disk, String node) {
        Set<String> named = Set.of(HexFormat.of().formatHex(TestCaller.ak(machine)), disk, node);
        return store.snapshot().entrySet().stream()
                .filter(b -> named.contains(b.getValue()) || Arrays.stream(b.getKey().split("/")).anyMatch(named::contains))
                .map(Map.Entry::getKey).toList();
    }

    private static void refused(Status.Code code, String message, Executable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
        assertEquals(code, e.getStatus().getCode(), e.getStatus().toString());
        assertTrue(e.getStatus().getDescription().contains(message), e.getStatus().getDescription());
    }
}
