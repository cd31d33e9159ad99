package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.joinapi.FakeKeyService;
import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
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

    private TestCluster cluster;
    private TestClusterStore etcd;
    private EtcdClient admin;
    private ApplicationContext service;
    private ManagedChannel channel;
    private NodeStateStore nodes;

    @BeforeAll
    void start() throws Exception {
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
        admin = etcd.admin();
        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "join-a"));
        p.put(JoinServiceConfig.INIT_NODE_AK_NAME, HexFormat.of().formatHex(INIT_AK));
        p.put(JoinServiceConfig.INIT_NODE_NODE_NAME, "revocation-cp-0");
        p.put(JoinServiceConfig.INIT_NODE_DISK_UUIDS, UUID.randomUUID().toString());
        p.put("grpc.server.port", "0");
        service = ApplicationContext.run(p, "test");
        GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
        server.start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        nodes = service.getBean(NodeStateStore.class);
    }

    @AfterAll
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (service != null) {
            service.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (etcd != null) {
            etcd.close();
        }
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
    }

    @Test
    @DisplayName("a joined node reports its VerifyService endpoint with its join and rejoin; the join service keeps the latest at nodes/<name>/endpoint")
    void endpointKept() throws Exception {
        byte[] ak = TestCaller.ak("endpoint-worker");
        String disk = UUID.randomUUID().toString();
        TestCaller.as(channel, ak).issueJoinTicket(join(disk, "endpoint-worker", "10.0.0.5:7443"));
        assertEquals(Optional.of("10.0.0.5:7443"), admin.get(V1 + "nodes/endpoint-worker/endpoint"));
        TestCaller.as(channel, ak).issueRejoinTicket(rejoin(disk, "10.0.0.9:7443"));
        assertEquals(Optional.of("10.0.0.9:7443"), admin.get(V1 + "nodes/endpoint-worker/endpoint"));

        StatusRuntimeException bad = assertThrows(StatusRuntimeException.class,
                () -> TestCaller.as(channel, ak).issueRejoinTicket(rejoin(disk, "10.0.0.9:7443/../x")));
        assertEquals(Status.Code.INVALID_ARGUMENT, bad.getStatus().getCode());
        assertEquals(Optional.of("10.0.0.9:7443"), admin.get(V1 + "nodes/endpoint-worker/endpoint"));
    }

    @Test
    @DisplayName("a revoked node's rejoin (its own disk, its own AK): PERMISSION_DENIED REVOKED naming the node, the time and the reason; no disk key, and its endpoint is not taken")
    void revokedRejoin() throws Exception {
        byte[] ak = TestCaller.ak("revoked-rejoiner");
        String disk = UUID.randomUUID().toString();
        assertEquals(FakeKeyService.keyFor(disk).length, TestCaller.as(channel, ak)
                .issueJoinTicket(join(disk, "worker-r", "10.0.0.6:7443")).getStateDiskKey().size());
        nodes.revoke("worker-r", HexFormat.of().formatHex(ak), "PCR_MISMATCH: PCR 4 differs", "revocation-cp-0");
        int kmsCalls = cluster.kms.calls.get();

        refusedRevoked("worker-r", "PCR_MISMATCH: PCR 4 differs",
                () -> TestCaller.as(channel, ak).issueRejoinTicket(rejoin(disk, "10.66.0.1:7443")));

        assertEquals(kmsCalls, cluster.kms.calls.get(), "no key was fetched for a revoked machine");
        assertEquals(Optional.of("10.0.0.6:7443"), admin.get(V1 + "nodes/worker-r/endpoint"));
    }

    @Test
    @DisplayName("a revoked node's join, retried or with a fresh disk and name: PERMISSION_DENIED REVOKED, nothing bound")
    void revokedJoin() throws Exception {
        byte[] ak = TestCaller.ak("revoked-joiner");
        String disk = UUID.randomUUID().toString();
        TestCaller.as(channel, ak).issueJoinTicket(join(disk, "worker-j", ""));
        nodes.revoke("worker-j", HexFormat.of().formatHex(ak), Revocation.OPERATOR, Revocation.BY_OPERATOR);

        refusedRevoked("worker-j", "OPERATOR", () -> TestCaller.as(channel, ak).issueJoinTicket(join(disk, "worker-j", "")));
        String fresh = UUID.randomUUID().toString();
        refusedRevoked("worker-j", "OPERATOR", () -> TestCaller.as(channel, ak).issueJoinTicket(join(fresh, "worker-j2", "")));
        assertEquals(Optional.empty(), admin.get(V1 + "bindings/disk/" + fresh));
        assertEquals(Optional.empty(), admin.get(V1 + "bindings/node/worker-j2"));
    }
}
