package dev.sextant.nodeboot.joinclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.nodeboot.deploy.DeployInputs;
import dev.sextant.proto.v1.ControlPlaneJoin;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.SignedMeasurements;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("A join ticket is checked against what the node asked for, before the node lock")
class TicketCheckTest {
    private static final String SELF = "cp-1";
    private static final String SELF_PEER = "https://etcd-cp-1.internal.sextant:2380";
    private static final EtcdPeer FIRST = peer("cp-0", "https://etcd-cp-0.internal.sextant:2380", "https://etcd-cp-0.internal.sextant:2379");
    private static final IssueJoinTicketRequest WORKER = IssueJoinTicketRequest.newBuilder().setNodeName("worker-0").build();
    private static final IssueJoinTicketRequest CONTROL_PLANE = IssueJoinTicketRequest.newBuilder().setNodeName(SELF)
            .setControlPlane(true).setEtcdMember(peer(SELF, SELF_PEER, "https://etcd-cp-1.internal.sextant:2379")).build();
    private static final byte[] MASTER_SECRET = filled(0x6d, 32);

    @TempDir
    Path dir;
    private SignedMeasurements measurements;

    @BeforeEach
    void sign() throws Exception {
        measurements = DeployInputs.signed(dir, DeployInputs.MEASUREMENTS);
    }

    private static EtcdPeer peer(String name, String peerUrl, String clientUrl) {
        return EtcdPeer.newBuilder().setName(name).setPeerUrl(peerUrl).setClientUrl(clientUrl).build();
    }

    private static byte[] filled(int value, int size) {
        byte[] b = new byte[size];
        Arrays.fill(b, (byte) value);
        return b;
    }

    /** What a join service holding the master secret answers a control plane: no Kubernetes, the learner just added listed. */
    private ControlPlaneJoin controlPlaneJoin() {
        return ControlPlaneJoin.newBuilder().setMasterSecret(ByteString.copyFrom(MASTER_SECRET))
                .setMasterSalt(ByteString.copyFrom(filled(0x73, 32)))
                .addEtcdMembers(FIRST).addEtcdMembers(peer(SELF, SELF_PEER, ""))
                .setJoinMeasurements(measurements).setEkCaPem(DeployInputs.EK_CA).build();
    }

    private IssueJoinTicketResponse controlPlaneTicket(UnaryOperator<ControlPlaneJoin.Builder> change) {
        return TestJoinService.ticket().toBuilder().clearK3S().setControlPlane(change.apply(controlPlaneJoin().toBuilder())).build();
    }

    private static List<String> problems(IssueJoinTicketResponse ticket, IssueJoinTicketRequest request) {
        return TicketCheck.problems(ticket, request, false);
    }

    @Test
    @DisplayName("a control plane's ticket with the master secret, its own member under the peer URL it asked for and measurements signed by their key passes")
    void goodControlPlaneTicket() {
        assertEquals(List.of(), problems(controlPlaneTicket(cp -> cp), CONTROL_PLANE));
    }

    @Test
    @DisplayName("a worker's ticket that carries the control-plane part is refused: the worker keeps no master secret")
    void workerTicketWithMasterSecret() {
        IssueJoinTicketResponse ticket = TestJoinService.ticket().toBuilder().setControlPlane(controlPlaneJoin()).build();
        assertEquals(List.of("a worker's ticket carries control-plane material (the master secret); refused, nothing kept"),
                problems(ticket, WORKER));
        assertEquals(List.of(), problems(TestJoinService.ticket(), WORKER), "a worker's ordinary ticket passes");
    }

    @Test
    @DisplayName("a control plane's ticket without the control-plane part is refused: it could not serve beside the others")
    void controlPlaneTicketWithout() {
        IssueJoinTicketResponse ticket = TestJoinService.ticket().toBuilder().clearK3S().build();
        assertEquals(List.of("a control plane's ticket carries no control_plane (the master secret, etcd's members, the measurements)"),
                problems(ticket, CONTROL_PLANE));
    }

    @Test
    @DisplayName("a control plane's ticket with a Kubernetes plan is refused: joining a cluster with Kubernetes is not supported yet")
    void controlPlaneTicketWithKubernetes() {
        IssueJoinTicketResponse ticket = controlPlaneTicket(cp -> cp).toBuilder().setK3S(TestJoinService.ticket().getK3S()).build();
        assertEquals(List.of(JoinClient.CONTROL_PLANE_WITH_KUBERNETES), problems(ticket, CONTROL_PLANE));
    }

    @Test
    @DisplayName("a master secret shorter than the KMS's 16 bytes, or longer than its 4096, and a salt shorter than its 32 are refused, naming sizes and never content")
    void secretSizes() {
        byte[] shortSecret = filled(0x6d, 15);
        List<String> problems = problems(controlPlaneTicket(cp -> cp.setMasterSecret(ByteString.copyFrom(shortSecret))
                .setMasterSalt(ByteString.copyFrom(filled(0x73, 31)))), CONTROL_PLANE);
        assertEquals(List.of("control_plane.master_secret has 15 bytes, not between 16 and 4096 (the KMS's sizes)",
                "control_plane.master_salt has 31 bytes, not between 32 and 4096 (the KMS's sizes)"), problems);
        assertEquals(List.of("control_plane.master_secret has 4097 bytes, not between 16 and 4096 (the KMS's sizes)"),
                problems(controlPlaneTicket(cp -> cp.setMasterSecret(ByteString.copyFrom(new byte[4097]))), CONTROL_PLANE));
        assertEquals(List.of("control_plane.master_salt has 0 bytes, not between 32 and 4096 (the KMS's sizes)"),
                problems(controlPlaneTicket(ControlPlaneJoin.Builder::clearMasterSalt), CONTROL_PLANE));
        String text = String.join("; ", problems);
        assertFalse(text.contains(HexFormat.of().formatHex(shortSecret)) || text.contains(Base64.getEncoder().encodeToString(shortSecret)));
    }

    @Test
    @DisplayName("etcd's members without this node's own, or with it under another peer URL than it asked for, are refused")
    void ownMember() {
        String missing = "control_plane.etcd_members does not list this node's member cp-1 under the peer URL it asked for, " + SELF_PEER;
        assertEquals(List.of(missing), problems(controlPlaneTicket(cp -> cp.clearEtcdMembers().addEtcdMembers(FIRST)), CONTROL_PLANE));
        assertEquals(List.of(missing), problems(controlPlaneTicket(cp -> cp.setEtcdMembers(1,
                peer(SELF, "https://etcd-cp-1.internal.sextant:2390", ""))), CONTROL_PLANE));
        assertEquals(List.of(missing), problems(controlPlaneTicket(cp -> cp.setEtcdMembers(1, peer("cp-9", SELF_PEER, ""))),
                CONTROL_PLANE), "its peer URL under another name is not its member");
    }

    @Test
    @DisplayName("a member's peer URL that is not https://HOST:PORT, a name etcd.env cannot carry, or a member named twice is refused")
    void memberForms() {
        for (String url : List.of("http://etcd-cp-0.internal.sextant:2380", "https://etcd-cp-0.internal.sextant",
                "https://etcd-cp-0.internal.sextant:2380/path", "https://user@etcd-cp-0:2380", "etcd-cp-0:2380")) {
            assertEquals(List.of("control_plane.etcd_members[0].peer_url is not of the form https://HOST:PORT"),
                    problems(controlPlaneTicket(cp -> cp.setEtcdMembers(0, peer("cp-0", url, ""))), CONTROL_PLANE), url);
        }
        assertEquals(List.of("control_plane.etcd_members[0].name is not an RFC 1123 node name"),
                problems(controlPlaneTicket(cp -> cp.setEtcdMembers(0, FIRST.toBuilder().setName("cp 0 $x"))), CONTROL_PLANE));
        assertEquals(List.of("control_plane.etcd_members[2] names a member listed before"),
                problems(controlPlaneTicket(cp -> cp.addEtcdMembers(FIRST.toBuilder().setPeerUrl("https://10.0.0.9:2380"))),
                        CONTROL_PLANE));
    }

    @Test
    @DisplayName("measurements whose signature does not verify under the key sent with them, or that carry none, are refused")
    void measurementsSignature() throws Exception {
        SignedMeasurements tampered = measurements.toBuilder()
                .setJson(ByteString.copyFromUtf8(DeployInputs.MEASUREMENTS.replace("qemu-vtpm", "other"))).build();
        List<String> problems = problems(controlPlaneTicket(cp -> cp.setJoinMeasurements(tampered)), CONTROL_PLANE);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("control_plane.join_measurements (") && problems.get(0).contains(
                "do not verify under the public key sent with them"), problems.get(0));
        assertFalse(problems.get(0).contains("other"), "names sizes, never content: " + problems.get(0));

        SignedMeasurements otherKey = measurements.toBuilder()
                .setPublicKeyPem(DeployInputs.signed(dir.resolve("other"), DeployInputs.MEASUREMENTS).getPublicKeyPem()).build();
        assertEquals(1, problems(controlPlaneTicket(cp -> cp.setJoinMeasurements(otherKey)), CONTROL_PLANE).size(),
                "signed, but by another key than the one sent");

        assertEquals(List.of("control_plane.join_measurements carry no signature"),
                problems(controlPlaneTicket(cp -> cp.setJoinMeasurements(measurements.toBuilder().clearSignature())), CONTROL_PLANE));
    }
}
