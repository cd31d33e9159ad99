package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.binding.BindingKey;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc.JoinServiceBlockingStub;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;

/**
 * Attacks on the bindings by an attested machine (a genuine TPM running the measured image, but
 * not the machine it claims to be): the init node's name and disks are bound before the service
 * serves, and one machine gets one name and one state disk. A claim is one transaction, so a refused
 * attempt writes nothing at all: it squats no key and spends none of the machine's own. The rules run
 * here over the in-memory store double; ClusterStoreAttacksTest attacks them through etcd.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on the join service's bindings")
class BindingAttacksTest implements TestPropertyProvider {
    private static final byte[] INIT_AK = TestCaller.ak("init-node");
    private static final String INIT_NAME = "control-plane-0";
    private static final String INIT_DISK = "11111111-2222-4333-8444-555555555555";
    private static final String INIT_VOLUME = "11111111-2222-4333-8444-666666666666";
    private static final byte[] ATTACKER = TestCaller.ak("attacker");

    private final TestCluster cluster = new TestCluster();

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Inject
    InMemoryBindingStoreDouble store;

    @Override
    public Map<String, String> getProperties() {
        return initNodeProperties(cluster);
    }

    private static Map<String, String> initNodeProperties(TestCluster cluster) {
        Map<String, String> p = new HashMap<>(cluster.properties());
        p.put(JoinServiceConfig.INIT_NODE_AK_NAME, HexFormat.of().formatHex(INIT_AK));
        p.put(JoinServiceConfig.INIT_NODE_NODE_NAME, INIT_NAME);
        p.put(JoinServiceConfig.INIT_NODE_DISK_UUIDS, INIT_DISK + "," + INIT_VOLUME);
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    private JoinServiceBlockingStub as(byte[] ak) {
        return TestCaller.as(channel, ak);
    }

    private static IssueJoinTicketRequest join(String uuid, String node) {
        return IssueJoinTicketRequest.newBuilder().setDiskUuid(uuid).setNodeName(node).build();
    }

    private static String newUuid() {
        return UUID.randomUUID().toString();
    }

    private Optional<String> owner(BindingKey key) throws Exception {
        return store.lookup(key);
    }

    private static StatusRuntimeException refused(Status.Code code, String message, Executable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
        assertEquals(code, e.getStatus().getCode(), e.getStatus().toString());
        assertTrue(e.getStatus().getDescription().contains(message), e.getStatus().getDescription());
        return e;
    }

    @Test
    @DisplayName("claim of the init node's state disk or data volume UUID by another AK: PERMISSION_DENIED, no key released, the binding stays the init node's")
    void initNodeDisk() throws Exception {
        refused(Status.Code.PERMISSION_DENIED, "belongs to another machine",
                () -> as(ATTACKER).issueJoinTicket(join(INIT_DISK, "attacker-1")));
        refused(Status.Code.PERMISSION_DENIED, "belongs to another machine",
                () -> as(TestCaller.ak("attacker-2")).issueJoinTicket(join(INIT_VOLUME, "attacker-2")));
        assertEquals(HexFormat.of().formatHex(INIT_AK), owner(BindingKey.disk(INIT_DISK)).orElseThrow());
        assertEquals(HexFormat.of().formatHex(INIT_AK), owner(BindingKey.disk(INIT_VOLUME)).orElseThrow());
    }

    @Test
    @DisplayName("claim of the init node's node name by another AK: ALREADY_EXISTS, the name stays the init node's")
    void initNodeName() throws Exception {
        refused(Status.Code.ALREADY_EXISTS, "node name " + INIT_NAME + " is held by another machine",
                () -> as(TestCaller.ak("attacker-3")).issueJoinTicket(join(newUuid(), INIT_NAME)));
        assertEquals(HexFormat.of().formatHex(INIT_AK), owner(BindingKey.node(INIT_NAME)).orElseThrow());
    }

    @Test
    @DisplayName("a second node name for one AK (an attested machine collecting kubelet identities): PERMISSION_DENIED, one name per machine")
    void secondName() throws Exception {
        byte[] ak = TestCaller.ak("collector");
        String disk = newUuid();
        as(ak).issueJoinTicket(join(disk, "worker-c"));
        refused(Status.Code.PERMISSION_DENIED, "already joined as node worker-c",
                () -> as(ak).issueJoinTicket(join(disk, "worker-not-yet-joined")));
        assertEquals(Optional.empty(), owner(BindingKey.node("worker-not-yet-joined")));
    }

    @Test
    @DisplayName("a second state disk for one AK (an attested machine collecting disk keys): PERMISSION_DENIED, one state disk per machine")
    void secondDisk() throws Exception {
        byte[] ak = TestCaller.ak("hoarder");
        as(ak).issueJoinTicket(join(newUuid(), "worker-h"));
        String other = newUuid();
        refused(Status.Code.PERMISSION_DENIED, "one state disk per machine",
                () -> as(ak).issueJoinTicket(join(other, "worker-h")));
        assertEquals(Optional.empty(), owner(BindingKey.disk(other)), "the refused UUID is not squatted");
    }

    @Test
    @DisplayName("an AK refused another machine's disk (or name) writes nothing, no key squatted and none of its own spent: it then joins with its own disk and name, and still gets no second one")
    void refusedAttemptWritesNothing() throws Exception {
        byte[] ak = TestCaller.ak("prober");
        String hex = HexFormat.of().formatHex(ak);
        Map<String, String> before = store.snapshot();
        refused(Status.Code.PERMISSION_DENIED, "belongs to another machine", () -> as(ak).issueJoinTicket(join(INIT_DISK, "prober")));
        refused(Status.Code.ALREADY_EXISTS, "is held by another machine", () -> as(ak).issueJoinTicket(join(newUuid(), INIT_NAME)));
        assertEquals(before, store.snapshot(), "a refused attempt wrote a key");
        String own = newUuid();
        as(ak).issueJoinTicket(join(own, "prober"));
        assertEquals(Optional.of(own), owner(BindingKey.machineDisk(hex)));
        refused(Status.Code.PERMISSION_DENIED, "one state disk per machine", () -> as(ak).issueJoinTicket(join(newUuid(), "prober")));
        refused(Status.Code.PERMISSION_DENIED, "one node name per machine", () -> as(ak).issueJoinTicket(join(own, "prober-2")));
    }

    @Test
    @DisplayName("a rejoin ticket for a disk by another AK (the init node's or a joined node's): PERMISSION_DENIED, only the owner gets it")
    void rejoinByAnotherAk() {
        String disk = newUuid();
        as(TestCaller.ak("owner")).issueJoinTicket(join(disk, "worker-o"));
        for (String uuid : new String[] {disk, INIT_DISK}) {
            refused(Status.Code.PERMISSION_DENIED, "goes only to the machine that owns the disk",
                    () -> as(ATTACKER).issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(uuid).build()));
        }
        // The owners still get theirs: the init node rejoins with its own disk after a reboot.
        assertEquals(32, as(INIT_AK).issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(INIT_DISK).build())
                .getStateDiskKey().size());
    }
}
