package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.binding.FileBindingStore;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** A control plane whose Kubernetes is not installed still admits attested nodes and binds their disks. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Join service without Kubernetes")
class NoKubernetesJoinTest implements TestPropertyProvider {
    private final TestCluster cluster = new TestCluster();
    private final Path records = cluster.dir.resolve("records");

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = cluster.properties();
        p.remove(JoinServiceConfig.KUBERNETES_BASE_PATH);
        p.put(JoinServiceConfig.KUBERNETES_ENABLED, "false");
        p.put(JoinServiceConfig.RECORDS_DIR, records.toString());
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    private IssueJoinTicketResponse join(String machine, String uuid, String node) {
        return TestCaller.as(channel, TestCaller.ak(machine)).issueJoinTicket(JoinTicketTest.request(uuid, node));
    }

    @Test
    @DisplayName("the ticket carries the keys and no Kubernetes plan, and the disk binding is a file")
    void ticketWithoutToken() throws Exception {
        String uuid = JoinTicketTest.newUuid();
        IssueJoinTicketResponse t = join("machine-a", uuid, "worker-a");
        assertArrayEquals(FakeKeyService.keyFor(uuid), t.getStateDiskKey().toByteArray());
        assertEquals(IssueJoinTicketResponse.KubernetesCase.KUBERNETES_NOT_SET, t.getKubernetesCase());
        assertEquals(HexFormat.of().formatHex(TestCaller.ak("machine-a")),
                Files.readString(records.resolve("disk-" + uuid)));
        assertEquals(0, cluster.kube.bindings().size(), "the Kubernetes API is not touched");
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
    @DisplayName("of 16 machines binding one subject at once, exactly one wins")
    void concurrentClaims() throws Exception {
        BindingStore store = new FileBindingStore(records);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Callable<Boolean>> claims = IntStream.range(0, 16).<Callable<Boolean>>mapToObj(i -> () -> {
                String ak = HexFormat.of().formatHex(TestCaller.ak("machine-" + i));
                return store.bind(BindingStore.Kind.NODE, "contested", ak).equals(ak);
            }).toList();
            long winners = 0;
            for (Future<Boolean> f : pool.invokeAll(claims)) {
                winners += f.get() ? 1 : 0;
            }
            assertEquals(1, winners);
        } finally {
            pool.shutdown();
        }
    }
}
