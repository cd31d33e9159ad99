package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Faults: a failing KMS, cluster store or API server gives UNAVAILABLE and leaves nothing half-issued")
class FailureAtomicityTest implements TestPropertyProvider {
    private final TestCluster cluster = new TestCluster();

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Inject
    @Client("/")
    HttpClient http;

    @Inject
    InMemoryBindingStoreDouble store;

    @Override
    public Map<String, String> getProperties() {
        return cluster.properties();
    }

    @AfterEach
    void heal() {
        cluster.kms.down.set(false);
        cluster.kube.heal();
        store.down(false);
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    private IssueJoinTicketResponse join(String machine, String uuid, String node) {
        return TestCaller.as(channel, TestCaller.ak(machine)).issueJoinTicket(JoinTicketTest.request(uuid, node));
    }

    private StatusRuntimeException refused(String machine, String uuid, String node) {
        return assertThrows(StatusRuntimeException.class, () -> join(machine, uuid, node));
    }

    @Test
    @DisplayName("KMS down: UNAVAILABLE, no binding and no token; after recovery the retry gets the key")
    void kmsDown() throws Exception {
        String uuid = JoinTicketTest.newUuid();
        int tokens = cluster.kube.bootstrapTokens().size();
        cluster.kms.down.set(true);
        StatusRuntimeException e = refused("kms-a", uuid, "kms-node");
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        assertEquals(tokens, cluster.kube.bootstrapTokens().size());
        assertTrue(store.snapshot().keySet().stream().noneMatch(k -> k.contains(uuid)), "nothing bound");

        cluster.kms.down.set(false);
        assertArrayEquals(FakeKeyService.keyFor(uuid), join("kms-a", uuid, "kms-node").getStateDiskKey().toByteArray());
    }

    @Test
    @DisplayName("API answering 500 to the token create: UNAVAILABLE and no token; the retry succeeds with the same key")
    void tokenCreateFails() throws Exception {
        String uuid = JoinTicketTest.newUuid();
        int tokens = cluster.kube.bootstrapTokens().size();
        cluster.kube.failWhen("POST", "/api/v1/namespaces/kube-system/secrets");
        StatusRuntimeException e = refused("api-a", uuid, "api-node");
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        cluster.kube.heal();
        assertEquals(tokens, cluster.kube.bootstrapTokens().size(), "no orphan token");

        IssueJoinTicketResponse retry = join("api-a", uuid, "api-node");
        assertArrayEquals(FakeKeyService.keyFor(uuid), retry.getStateDiskKey().toByteArray());
        assertEquals(tokens + 1, cluster.kube.bootstrapTokens().size());
        // The claim made before the failure still protects the disk.
        assertEquals(Status.Code.PERMISSION_DENIED, refused("api-intruder", uuid, "other").getStatus().getCode());
    }

    @Test
    @DisplayName("the cluster store not answering the bindings' transaction: UNAVAILABLE naming it, and no token exists for the failed call")
    void bindingsFail() throws Exception {
        int tokens = cluster.kube.bootstrapTokens().size();
        store.down(true);
        StatusRuntimeException e = refused("api-b", JoinTicketTest.newUuid(), "api-node-b");
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("cluster store (etcd)"), e.getStatus().getDescription());
        assertEquals(tokens, cluster.kube.bootstrapTokens().size());
    }

    @Test
    @DisplayName("/health is UP and /prometheus counts issued tickets and refusals by reason")
    void metrics() {
        assertEquals(200, http.toBlocking().exchange("/health", String.class).code());
        double issued = metric("sextant_join_tickets_issued_total{kind=\"join\"}");
        double kmsDown = metric("sextant_join_tickets_refused_total{kind=\"join\",reason=\"kms_unavailable\"}");
        join("metrics-a", JoinTicketTest.newUuid(), "metrics-node");
        cluster.kms.down.set(true);
        refused("metrics-b", JoinTicketTest.newUuid(), "metrics-node-b");
        assertEquals(issued + 1, metric("sextant_join_tickets_issued_total{kind=\"join\"}"));
        assertEquals(kmsDown + 1, metric("sextant_join_tickets_refused_total{kind=\"join\",reason=\"kms_unavailable\"}"));
        assertTrue(metric("sextant_join_ticket_seconds_count{kind=\"join\",outcome=\"issued\"}") >= 1);
    }

    private double metric(String series) {
        String body = http.toBlocking().retrieve("/prometheus");
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(body);
        assertTrue(m.find(), () -> series + " not found in:\n" + body.lines().filter(l -> l.startsWith("sextant")).toList());
        return Double.parseDouble(m.group(1));
    }
}
