package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** A control plane whose Kubernetes is not installed still admits attested nodes and binds their disks, in etcd. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Join service without Kubernetes, its bindings in etcd")
class NoKubernetesJoinTest implements TestPropertyProvider {
    private final TestCluster cluster = new TestCluster();
    private final TestClusterStore etcd = new TestClusterStore(1);

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = etcd.joinService(cluster, "no-kubernetes");
        p.remove(JoinServiceConfig.KUBERNETES_BASE_PATH);
        p.put(JoinServiceConfig.KUBERNETES_ENABLED, "false");
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
        etcd.close();
    }

    private IssueJoinTicketResponse join(String machine, String uuid, String node) {
        return TestCaller.as(channel, TestCaller.ak(machine)).issueJoinTicket(JoinTicketTest.request(uuid, node));
    }

    @Test
    @DisplayName("the ticket carries the keys and no Kubernetes plan; the bindings are in etcd, where another client (a restarted service) reads them")
    void ticketWithoutToken() throws Exception {
        String uuid = JoinTicketTest.newUuid();
        IssueJoinTicketResponse t = join("machine-a", uuid, "worker-a");
        assertArrayEquals(FakeKeyService.keyFor(uuid), t.getStateDiskKey().toByteArray());
        assertEquals(IssueJoinTicketResponse.KubernetesCase.KUBERNETES_NOT_SET, t.getKubernetesCase());
        assertEquals(0, cluster.kube.bootstrapTokens().size(), "the Kubernetes API is not touched");
        String ak = HexFormat.of().formatHex(TestCaller.ak("machine-a"));
        try (EtcdClient restarted = new EtcdClient(new EtcdClientConfig(etcd.endpoints(), etcd.etcd().clientTls("restarted")))) {
            assertEquals(Optional.of(ak), restarted.get("/sextant/v1/bindings/disk/" + uuid));
            assertEquals(Optional.of(uuid), restarted.get("/sextant/v1/bindings/machine/" + ak + "/disk"), "the machine's one state disk");
        }
    }

    @Test
    @DisplayName("another machine asking for a bound disk is refused")
    void boundDisk() {
        String uuid = JoinTicketTest.newUuid();
        join("machine-b", uuid, "worker-b");
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> join("intruder", uuid, "worker-x"));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
    }

    @Test
    @DisplayName("of 16 machines joining at once under one node name, exactly one gets a ticket; the others are refused ALREADY_EXISTS")
    void concurrentClaims() throws Exception {
        CyclicBarrier together = new CyclicBarrier(16);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Callable<Status.Code>> claims = IntStream.range(0, 16).<Callable<Status.Code>>mapToObj(i -> () -> {
                together.await();
                try {
                    join("contender-" + i, JoinTicketTest.newUuid(), "contested");
                    return Status.Code.OK;
                } catch (StatusRuntimeException e) {
                    return e.getStatus().getCode();
                }
            }).toList();
            long winners = 0;
            for (Future<Status.Code> f : pool.invokeAll(claims)) {
                Status.Code code = f.get();
                assertTrue(code == Status.Code.OK || code == Status.Code.ALREADY_EXISTS, code.toString());
                winners += code == Status.Code.OK ? 1 : 0;
            }
            assertEquals(1, winners);
        } finally {
            pool.shutdown();
        }
    }
}
