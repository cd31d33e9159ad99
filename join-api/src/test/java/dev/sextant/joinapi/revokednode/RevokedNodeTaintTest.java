package dev.sextant.joinapi.revokednode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.KubeApiDouble;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Taint;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Against the Kubernetes API test double (fabric8's CRUD server, the real REST protocol). */
@DisplayName("A revoked node's Node object is cordoned and tainted sextant.dev/revoked:NoExecute, its value the revocation's code")
class RevokedNodeTaintTest {
    private final KubeApiDouble kube = new KubeApiDouble();
    private final CoreV1Api core = kube.client();
    private final RevokedNodeTaint taint = new RevokedNodeTaint(core, Clock.systemUTC());

    @AfterEach
    void close() {
        kube.close();
    }

    @Test
    @DisplayName("a revoked node's Node is cordoned and gets the taint sextant.dev/revoked=<code>:NoExecute, with the time it was added")
    void cordonedAndTainted() throws Exception {
        node("worker-0");

        assertEquals(RevokedNodeTaint.Outcome.CORDONED_AND_TAINTED, taint.apply("worker-0", "PCR_MISMATCH: PCR 4 differs"));

        V1Node node = read("worker-0");
        assertEquals(Boolean.TRUE, node.getSpec().getUnschedulable());
        List<V1Taint> taints = node.getSpec().getTaints();
        assertEquals(1, taints.size(), taints.toString());
        assertEquals("sextant.dev/revoked", taints.get(0).getKey());
        assertEquals("PCR_MISMATCH", taints.get(0).getValue());
        assertEquals("NoExecute", taints.get(0).getEffect());
        assertNotNull(taints.get(0).getTimeAdded(), "the taint manager counts tolerationSeconds from it");
    }

    @Test
    @DisplayName("the Node's other taints are kept, also one with the same key and another effect; a value of ours written by hand gives way")
    void otherTaintsKept() throws Exception {
        node("worker-1", new V1Taint().key("dedicated").value("gpu").effect("NoSchedule"),
                new V1Taint().key("sextant.dev/revoked").value("x").effect("NoSchedule"),
                new V1Taint().key("sextant.dev/revoked").value("by-hand").effect("NoExecute"));

        taint.apply("worker-1", "OPERATOR");

        List<String> taints = read("worker-1").getSpec().getTaints().stream()
                .map(t -> t.getKey() + "=" + t.getValue() + ":" + t.getEffect()).toList();
        assertEquals(List.of("dedicated=gpu:NoSchedule", "sextant.dev/revoked=x:NoSchedule", "sextant.dev/revoked=OPERATOR:NoExecute"), taints);
    }

    @Test
    @DisplayName("applying it again changes nothing: the Node is not written (same resourceVersion, same timeAdded)")
    void idempotent() throws Exception {
        node("worker-2", new V1Taint().key("dedicated").value("gpu").effect("NoSchedule"));
        taint.apply("worker-2", "UNREACHABLE: missed 20 rounds in a row");
        V1Node first = read("worker-2");

        assertEquals(RevokedNodeTaint.Outcome.ALREADY, taint.apply("worker-2", "UNREACHABLE: missed 20 rounds in a row"));
        taint.apply(Map.of("worker-2", "UNREACHABLE: missed 20 rounds in a row"));

        V1Node again = read("worker-2");
        assertEquals(first.getMetadata().getResourceVersion(), again.getMetadata().getResourceVersion());
        assertEquals(first.getSpec(), again.getSpec());
    }

    @Test
    @DisplayName("a Node that was uncordoned is cordoned again, its taint (and when it was added) kept")
    void uncordonedAgain() throws Exception {
        node("worker-3");
        taint.apply("worker-3", "AK_MISMATCH: answered with AK 000b12");
        V1Taint added = read("worker-3").getSpec().getTaints().get(0);
        V1Node uncordoned = read("worker-3");
        uncordoned.getSpec().setUnschedulable(false);
        core.replaceNode("worker-3", uncordoned).execute();

        assertEquals(RevokedNodeTaint.Outcome.CORDONED_AND_TAINTED, taint.apply("worker-3", "AK_MISMATCH: answered with AK 000b12"));

        V1Node node = read("worker-3");
        assertEquals(Boolean.TRUE, node.getSpec().getUnschedulable());
        assertEquals(List.of(added), node.getSpec().getTaints());
    }

    @Test
    @DisplayName("a revoked node without a Node object (it never registered) is not an error, and the nodes after it are still tainted")
    void missingNodeIsFine() throws Exception {
        node("worker-5");
        assertEquals(RevokedNodeTaint.Outcome.NO_NODE, taint.apply("worker-4", "OPERATOR"));

        Map<String, String> revoked = new LinkedHashMap<>();
        revoked.put("worker-4", "OPERATOR");
        revoked.put("worker-5", "OPERATOR");
        taint.apply(revoked);

        assertEquals(Boolean.TRUE, read("worker-5").getSpec().getUnschedulable());
        ApiException missing = org.junit.jupiter.api.Assertions.assertThrows(ApiException.class, () -> read("worker-4"));
        assertEquals(404, missing.getCode(), "nothing was created for the missing node");
    }

    @Test
    @DisplayName("an API server in trouble: the sweep does not throw and leaves the Node as it was; the next sweep cordons and taints it")
    void apiFailureRetriedNextSweep() throws Exception {
        node("worker-6");
        kube.failWhen("PATCH", "/api/v1/nodes");

        taint.apply(Map.of("worker-6", "IMAGE_RETIRED: image 1.0 was retired"));
        assertNull(read("worker-6").getSpec().getUnschedulable());

        kube.heal();
        taint.apply(Map.of("worker-6", "IMAGE_RETIRED: image 1.0 was retired"));
        V1Node node = read("worker-6");
        assertEquals(Boolean.TRUE, node.getSpec().getUnschedulable());
        assertEquals("IMAGE_RETIRED", node.getSpec().getTaints().get(0).getValue());
    }

    @Test
    @DisplayName("the taint's value is the reason's code; a reason that does not start with a label value is tainted REVOKED")
    void valueIsTheCode() {
        assertEquals("OPERATOR", RevokedNodeTaint.code("OPERATOR"));
        assertEquals("PCR_MISMATCH", RevokedNodeTaint.code("PCR_MISMATCH: PCR 4 differs"));
        assertEquals("REVOKED", RevokedNodeTaint.code("not a code: x"));
        assertEquals("REVOKED", RevokedNodeTaint.code("x".repeat(64)));
        assertTrue(RevokedNodeTaint.code("a").equals("a"));
    }

    private void node(String name, V1Taint... taints) throws ApiException {
        V1NodeSpec spec = new V1NodeSpec();
        if (taints.length > 0) {
            spec.taints(List.of(taints));
        }
        core.createNode(new V1Node().apiVersion("v1").kind("Node").metadata(new V1ObjectMeta().name(name)).spec(spec)).execute();
    }

    private V1Node read(String name) throws ApiException {
        return core.readNode(name).execute();
    }
}
