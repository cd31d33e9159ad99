package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.joinapi.FakeKeyService;
import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestJoinService;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.grpcsupport.WireRefusal;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A revoked machine asks again: a join service over real etcd, the machine's AK revoked in etcd as
 * re-attestation or the operator revokes it. Revocation is final for the AK: no ticket of either kind,
 * whatever the request, and the refusal says when and why.
 */
@DisplayName("Attacks by a revoked machine: its rejoin and its join are refused REVOKED, naming when and why")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RevokedMachineAttacksTest {
    private static final String V1 = "/sextant/v1/";
    private static final byte[] INIT_AK = TestCaller.ak("revocation-init-node");

    @AutoClose
    private final TestJoinService service = new TestJoinService("join-a");
    private EtcdClient admin;
    private NodeStateStore nodes;

    @BeforeAll
    void start() {
        service.initNode(INIT_AK, "revocation-cp-0").start();
        admin = service.admin();
        nodes = service.bean(NodeStateStore.class);
    }

    private static IssueJoinTicketRequest join(String disk, String node, String endpoint) {
        return IssueJoinTicketRequest.newBuilder().setDiskUuid(disk).setNodeName(node).setVerifyEndpoint(endpoint).build();
    }

    private static IssueRejoinTicketRequest rejoin(String disk, String endpoint) {
        return IssueRejoinTicketRequest.newBuilder().setDiskUuid(disk).setVerifyEndpoint(endpoint).build();
    }

    private static void refusedRevoked(String node, String reason, Runnable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call::run);
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode(), e.getStatus().toString());
        String message = e.getStatus().getDescription();
        assertTrue(message.startsWith("node " + node + " was revoked at 20"), message);
        assertTrue(message.contains(": " + reason + ";"), message);
        // What the node acts on: the refusal's code and the revocation's, in the trailers, not the text.
        assertEquals(Optional.of(new WireRefusal(Status.Code.PERMISSION_DENIED, "REVOKED", Optional.of(reason.split(":")[0]))),
                WireRefusal.of(e));
    }

    @Test
    @DisplayName("a joined node reports its VerifyService endpoint with its join and rejoin; the join service keeps the latest at nodes/<name>/endpoint")
    void endpointKept() throws Exception {
        byte[] ak = TestCaller.ak("endpoint-worker");
        String disk = UUID.randomUUID().toString();
        TestCaller.as(service.channel(), ak).issueJoinTicket(join(disk, "endpoint-worker", "10.0.0.5:7443"));
        assertEquals(Optional.of("10.0.0.5:7443"), admin.get(V1 + "nodes/endpoint-worker/endpoint"));
        TestCaller.as(service.channel(), ak).issueRejoinTicket(rejoin(disk, "10.0.0.9:7443"));
        assertEquals(Optional.of("10.0.0.9:7443"), admin.get(V1 + "nodes/endpoint-worker/endpoint"));

        StatusRuntimeException bad = assertThrows(StatusRuntimeException.class,
                () -> TestCaller.as(service.channel(), ak).issueRejoinTicket(rejoin(disk, "10.0.0.9:7443/../x")));
        assertEquals(Status.Code.INVALID_ARGUMENT, bad.getStatus().getCode());
        assertEquals(Optional.of("10.0.0.9:7443"), admin.get(V1 + "nodes/endpoint-worker/endpoint"));
    }

    @Test
    @DisplayName("a revoked node's rejoin (its own disk, its own AK): PERMISSION_DENIED REVOKED naming the node, the time and the reason, and the codes REVOKED and the revocation's in the trailers; no disk key, its endpoint is not taken, its record stays revoked")
    void revokedRejoin() throws Exception {
        byte[] ak = TestCaller.ak("revoked-rejoiner");
        String disk = UUID.randomUUID().toString();
        assertEquals(FakeKeyService.keyFor(disk).length, TestCaller.as(service.channel(), ak)
                .issueJoinTicket(join(disk, "worker-r", "10.0.0.6:7443")).getStateDiskKey().size());
        nodes.revoke("worker-r", HexFormat.of().formatHex(ak), "PCR_MISMATCH: PCR 4 differs", "revocation-cp-0");
        int kmsCalls = service.cluster.kms.calls.get();

        refusedRevoked("worker-r", "PCR_MISMATCH: PCR 4 differs",
                () -> TestCaller.as(service.channel(), ak).issueRejoinTicket(rejoin(disk, "10.66.0.1:7443")));

        assertEquals(kmsCalls, service.cluster.kms.calls.get(), "no key was fetched for a revoked machine");
        assertEquals(Optional.of("10.0.0.6:7443"), admin.get(V1 + "nodes/worker-r/endpoint"));
        AttestationRecord record = nodes.attestation("worker-r").orElseThrow();
        assertEquals(AttestationState.REVOKED, record.state(), "its record stays revoked: " + record);
        assertEquals(Optional.of("PCR_MISMATCH: PCR 4 differs"), record.failure());
    }

    @Test
    @DisplayName("a rejoin that a revocation overtakes after its check (the operator revokes while the ticket fetches the disk key): PERMISSION_DENIED REVOKED, its record stays revoked, its endpoint is not taken; the rejoin resurrects nothing")
    void revocationRacingRejoin() throws Exception {
        byte[] ak = TestCaller.ak("racing-rejoiner");
        String disk = UUID.randomUUID().toString();
        TestCaller.as(service.channel(), ak).issueJoinTicket(join(disk, "worker-race", "10.0.0.7:7443"));
        assertEquals(AttestationState.ATTESTED, nodes.attestation("worker-race").orElseThrow().state());
        service.cluster.kms.meanwhile = () -> {
            try {
                nodes.revoke("worker-race", HexFormat.of().formatHex(ak), Revocation.OPERATOR, Revocation.BY_OPERATOR);
            } catch (Refusal e) {
                throw new IllegalStateException(e);
            }
        };
        try {
            refusedRevoked("worker-race", "OPERATOR",
                    () -> TestCaller.as(service.channel(), ak, "9.9.9").issueRejoinTicket(rejoin(disk, "10.66.0.2:7443")));
        } finally {
            service.cluster.kms.meanwhile = () -> { };
        }

        AttestationRecord record = nodes.attestation("worker-race").orElseThrow();
        assertEquals(AttestationState.REVOKED, record.state(), "its record stays revoked: " + record);
        assertEquals(Optional.of("unversioned"), record.imageVersion(), "the join's image, not the rejoin's");
        assertEquals(Optional.of("10.0.0.7:7443"), admin.get(V1 + "nodes/worker-race/endpoint"));
    }

    @Test
    @DisplayName("a join retried while a revocation lands after its check (the operator revokes while the ticket fetches its keys):"
            + " PERMISSION_DENIED REVOKED, and no bootstrap token is left behind in kube-system for the refused ticket")
    void revocationRacingJoinLeavesNoToken() throws Exception {
        byte[] ak = TestCaller.ak("racing-joiner");
        String disk = UUID.randomUUID().toString();
        TestCaller.as(service.channel(), ak).issueJoinTicket(join(disk, "worker-jrace", "10.0.0.8:7443"));
        int tokens = service.cluster.kube.bootstrapTokens().size();
        service.cluster.kms.meanwhile = () -> {
            try {
                nodes.revoke("worker-jrace", HexFormat.of().formatHex(ak), Revocation.OPERATOR, Revocation.BY_OPERATOR);
            } catch (Refusal e) {
                throw new IllegalStateException(e);
            }
        };
        try {
            refusedRevoked("worker-jrace", "OPERATOR",
                    () -> TestCaller.as(service.channel(), ak).issueJoinTicket(join(disk, "worker-jrace", "10.66.0.3:7443")));
        } finally {
            service.cluster.kms.meanwhile = () -> { };
        }

        assertEquals(tokens, service.cluster.kube.bootstrapTokens().size(), "no token for the refused ticket");
        assertEquals(AttestationState.REVOKED, nodes.attestation("worker-jrace").orElseThrow().state());
        assertEquals(Optional.of("10.0.0.8:7443"), admin.get(V1 + "nodes/worker-jrace/endpoint"));
    }

    @Test
    @DisplayName("a revoked node's join, retried or with a fresh disk and name: PERMISSION_DENIED REVOKED, nothing bound")
    void revokedJoin() throws Exception {
        byte[] ak = TestCaller.ak("revoked-joiner");
        String disk = UUID.randomUUID().toString();
        TestCaller.as(service.channel(), ak).issueJoinTicket(join(disk, "worker-j", ""));
        nodes.revoke("worker-j", HexFormat.of().formatHex(ak), Revocation.OPERATOR, Revocation.BY_OPERATOR);

        refusedRevoked("worker-j", "OPERATOR", () -> TestCaller.as(service.channel(), ak).issueJoinTicket(join(disk, "worker-j", "")));
        String fresh = UUID.randomUUID().toString();
        refusedRevoked("worker-j", "OPERATOR", () -> TestCaller.as(service.channel(), ak).issueJoinTicket(join(fresh, "worker-j2", "")));
        assertEquals(Optional.empty(), admin.get(V1 + "bindings/disk/" + fresh));
        assertEquals(Optional.empty(), admin.get(V1 + "bindings/node/worker-j2"));
    }
}
