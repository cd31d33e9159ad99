package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.joinapi.TestJoinService;
import dev.sextant.joinapi.revokednode.RevokedNodeTaint;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.joinapi.reattest.ReAttestationStartup;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Taint;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A revoked machine gets no ticket and no discovery, but its kubelet keeps the Kubernetes credentials it
 * already has, and with them the pods scheduled to it: revocation must take the workloads away as well. A
 * join service as it starts in Kubernetes mode (the Kubernetes API test double, real etcd), holding the
 * re-attestation duty with a 1 s period; the kubelets are played by the Node objects they would register.
 */
@DisplayName("Attacks by a revoked node on the cluster's workloads")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RevokedNodeWorkloadAttacksTest {
    private static final String V1 = "/sextant/v1/";
    private static final Duration WITHIN = Duration.ofSeconds(20);

    @AutoClose
    private final TestJoinService service = new TestJoinService("cp-0");
    private EtcdClient admin;
    private CoreV1Api kube;

    @BeforeAll
    void start() {
        // One missed round is all this service allows: the holder revokes a node that stops answering at once.
        service.reAttesting("cp-0", Duration.ofSeconds(1), Duration.ofSeconds(2))
                .with("sextant.join.reattest.missed-periods", "1")
                .start();
        admin = service.admin();
        kube = service.cluster.kube.client();
    }

    @Test
    @DisplayName("a revoked node keeps running workloads: it is cordoned and tainted sextant.dev/revoked:NoExecute at its revocation (the holder's, "
            + "or the operator's at the next round), its other taints kept; a kubelet that registers its Node again without them gets them back "
            + "at the next round; a revoked node without a Node object is no obstacle")
    void revokedNodeLosesItsWorkloads() throws Exception {
        // Revoked by the holder: it stops answering, and one missed round is all this service allows.
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        bind("w1-unregistered", "000b" + "11".repeat(32));
        bind("w2-silent", "000b" + "22".repeat(32));
        bind("w3-operator", "000b" + "33".repeat(32));
        registerNode("w2-silent", new V1Taint().key("dedicated").value("batch").effect("NoSchedule"));
        registerNode("w3-operator");
        NodeStateStore nodes = service.bean(NodeStateStore.class);
        nodes.revoke("w1-unregistered", "000b" + "11".repeat(32), Revocation.OPERATOR, Revocation.BY_OPERATOR);
        nodes.recordEndpoint("w2-silent", "127.0.0.1:" + closedPort);

        awaitCordonedAndTainted("w2-silent", "UNREACHABLE");
        assertTrue(nodes.revocation("000b" + "22".repeat(32)).orElseThrow().reason().startsWith("UNREACHABLE"));
        assertEquals(List.of("dedicated=batch:NoSchedule", "sextant.dev/revoked=UNREACHABLE:NoExecute"), taints("w2-silent"));

        // Revoked by the operator (OperatorEndpoint's call): the holder's next round.
        Instant revoked = Instant.now();
        nodes.revoke("w3-operator", "000b" + "33".repeat(32), Revocation.OPERATOR, Revocation.BY_OPERATOR);
        awaitCordonedAndTainted("w3-operator", "OPERATOR");
        System.out.println("operator's revocation -> Node cordoned and tainted: " + Duration.between(revoked, Instant.now()).toMillis()
                + " ms with a period of 1000 ms");

        // Its kubelet deletes its Node and registers it again, schedulable and untainted.
        kube.deleteNode("w3-operator").execute();
        registerNode("w3-operator");
        awaitCordonedAndTainted("w3-operator", "OPERATOR");
        assertEquals(List.of("sextant.dev/revoked=OPERATOR:NoExecute"), taints("w3-operator"));

        assertTrue(service.bean(ReAttestationStartup.class).duty().isHolder());
        assertEquals(404, notFound("w1-unregistered"), "nothing was made up for a node that never registered");
    }

    private void bind(String name, String ak) throws Exception {
        admin.put(V1 + "bindings/node/" + name, ak);
        admin.put(V1 + "bindings/machine/" + ak + "/node", name);
        admin.put(V1 + "bindings/machine/" + ak + "/role", "worker");
    }

    private void registerNode(String name, V1Taint... taints) throws ApiException {
        V1NodeSpec spec = new V1NodeSpec();
        if (taints.length > 0) {
            spec.taints(List.of(taints));
        }
        kube.createNode(new V1Node().apiVersion("v1").kind("Node").metadata(new V1ObjectMeta().name(name)).spec(spec)).execute();
    }

    private void awaitCordonedAndTainted(String name, String code) throws Exception {
        Instant deadline = Instant.now().plus(WITHIN);
        while (true) {
            V1Node node = kube.readNode(name).execute();
            boolean cordoned = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
            boolean tainted = Optional.ofNullable(node.getSpec().getTaints()).orElse(List.of()).stream()
                    .anyMatch(t -> RevokedNodeTaint.KEY.equals(t.getKey()) && code.equals(t.getValue()) && "NoExecute".equals(t.getEffect()));
            if (cordoned && tainted) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("Node " + name + " is not cordoned and tainted " + code + " after " + WITHIN + ": " + node.getSpec());
            }
            Thread.sleep(100);
        }
    }

    private List<String> taints(String name) throws ApiException {
        return kube.readNode(name).execute().getSpec().getTaints().stream()
                .map(t -> t.getKey() + "=" + t.getValue() + ":" + t.getEffect()).toList();
    }

    private int notFound(String name) {
        try {
            kube.readNode(name).execute();
            return 200;
        } catch (ApiException e) {
            return e.getCode();
        }
    }
}
