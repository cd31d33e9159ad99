package dev.sextant.localcluster.mini.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The port plan of a mini cluster")
class PortPlanTest {
    private final Map<String, NodeRole> nodes = new LinkedHashMap<>(Map.of(
            "control-plane-0", NodeRole.CONTROL_PLANE));

    {
        nodes.put("worker-0", NodeRole.WORKER);
        nodes.put("worker-1", NodeRole.WORKER);
    }

    @Test
    @DisplayName("forwards the bootstrapper, recovery, join gRPC, join HTTP, Kubernetes API and etcd client and peer ports"
            + " of a control plane, and 7443 of each worker")
    void forwardsPerRole() {
        PrimitiveIterator.OfInt ports = IntStream.iterate(40000, p -> p + 1).iterator();
        PortPlan plan = PortPlan.pick(nodes, ports::nextInt);
        assertEquals(Map.of(7443, 40000, 7444, 40001, 9090, 40002, 9091, 40003, 6443, 40004, 2379, 40005, 2380, 40006),
                plan.ports("control-plane-0"));
        assertEquals(Map.of(7443, 40007), plan.ports("worker-0"));
        assertEquals(Map.of(7443, 40008), plan.ports("worker-1"));
        assertEquals(40002, plan.hostPort("control-plane-0", NodeRole.JOIN_PORT));
    }

    @Test
    @DisplayName("lists every control plane's join forward, in node order, as a guest reaches it; workers serve none")
    void joinEndpointsOfEveryControlPlane() {
        Map<String, NodeRole> three = new LinkedHashMap<>();
        three.put("control-plane-0", NodeRole.CONTROL_PLANE);
        three.put("control-plane-1", NodeRole.CONTROL_PLANE);
        three.put("control-plane-2", NodeRole.CONTROL_PLANE);
        three.put("worker-0", NodeRole.WORKER);
        PortPlan plan = PortPlan.pick(three, IntStream.iterate(40000, p -> p + 1).iterator()::nextInt);
        assertEquals("10.0.2.2:40002,10.0.2.2:40009,10.0.2.2:40016", plan.joinEndpoints());
    }

    @Test
    @DisplayName("advertises a control plane's etcd member at its peer and client forwards, as the other guests reach them")
    void etcdAdvertise() {
        PortPlan plan = PortPlan.pick(nodes, IntStream.iterate(40000, p -> p + 1).iterator()::nextInt);
        assertEquals("10.0.2.2:40006:40005", plan.etcdAdvertise("control-plane-0"));
        assertThrows(IllegalArgumentException.class, () -> plan.etcdAdvertise("worker-0"));
    }

    @Test
    @DisplayName("never gives one host port twice, even when the kernel hands a released port back")
    void distinctPorts() {
        PrimitiveIterator.OfInt ports = IntStream.of(40000, 40000, 40001, 40001, 40000, 40002, 40003, 40004, 40005, 40006, 40007, 40008, 40009)
                .iterator();
        PortPlan plan = PortPlan.pick(nodes, ports::nextInt);
        List<Integer> all = nodes.keySet().stream().flatMap(n -> plan.ports(n).values().stream()).toList();
        assertEquals(all.size(), all.stream().distinct().count(), all::toString);
    }

    @Test
    @DisplayName("names the node when asked for a port it has no forward for")
    void unknownForward() {
        PortPlan plan = PortPlan.pick(nodes, IntStream.iterate(40000, p -> p + 1).iterator()::nextInt);
        var e = assertThrows(IllegalArgumentException.class, () -> plan.hostPort("worker-0", NodeRole.JOIN_PORT));
        assertEquals("worker-0 has no forward for guest port 9090", e.getMessage());
    }
}
