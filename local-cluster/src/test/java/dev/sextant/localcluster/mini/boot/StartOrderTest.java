package dev.sextant.localcluster.mini.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.ProcessRef;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The order a stopped mini cluster comes back in")
class StartOrderTest {
    private static final ProcessRef RUNNING = ProcessRef.of(ProcessHandle.current(), "java");

    private static MiniState.Node node(String name, ProcessRef qemu) {
        NodeRole role = name.startsWith("worker") ? NodeRole.WORKER : NodeRole.CONTROL_PLANE;
        return new MiniState.Node(name, role, Map.of(), "c", qemu, null);
    }

    private static MiniState.Node node(String name) {
        return node(name, null);
    }

    private static MiniState cluster(MiniState.Node... nodes) {
        return new MiniState(MiniState.VERSION, MiniState.UP, "t", "i", "ab", List.of(nodes));
    }

    @Test
    @DisplayName("recovers a quorum of control planes (the init node first), lets the others rejoin, then the workers,"
            + " whatever order mini.json lists them in")
    void quorumFirst() {
        StartOrder order = StartOrder.of(List.of(node("worker-0"), node("control-plane-2"), node("control-plane-0"),
                node("worker-1"), node("control-plane-1")));
        assertEquals(List.of("control-plane-0", "control-plane-1"), names(order.recovered()));
        assertEquals(List.of("control-plane-2"), names(order.rejoining()));
        assertEquals(List.of("worker-0", "worker-1"), names(order.workers()));
    }

    @Test
    @DisplayName("recovers the one control plane of a cluster with one, and sorts control-plane-10 after control-plane-2")
    void oneControlPlaneAndNumericOrder() {
        StartOrder one = StartOrder.of(List.of(node("worker-0"), node("control-plane-0")));
        assertEquals(List.of("control-plane-0"), names(one.recovered()));
        assertEquals(List.of(), one.rejoining());
        List<MiniState.Node> many = new java.util.ArrayList<>();
        for (int i = 10; i >= 0; i--) {
            many.add(node("control-plane-" + i));
        }
        StartOrder eleven = StartOrder.of(many);
        assertEquals(6, eleven.recovered().size());
        assertEquals("control-plane-10", eleven.rejoining().get(eleven.rejoining().size() - 1).name());
    }

    @Test
    @DisplayName("needs a majority: 1 of 1, 2 of 3, 3 of 5, 4 of 7")
    void quorum() {
        assertEquals(List.of(1, 2, 3, 4), List.of(StartOrder.quorum(1), StartOrder.quorum(3), StartOrder.quorum(5),
                StartOrder.quorum(7)));
    }

    @Test
    @DisplayName("lets a rebooted worker rejoin by itself, and a control plane only when it knows the join services"
            + " and a quorum of the others runs; otherwise it is recovered")
    void rejoins() {
        MiniState.Node worker = node("worker-0");
        MiniState.Node cp1 = node("control-plane-1");
        MiniState othersRunning = cluster(node("control-plane-0", RUNNING), cp1, node("control-plane-2", RUNNING), worker);
        assertTrue(StartOrder.rejoins(worker, false, othersRunning));
        assertTrue(StartOrder.rejoins(cp1, true, othersRunning));
        assertFalse(StartOrder.rejoins(cp1, false, othersRunning), "the init node knows no join service");
        MiniState oneOtherRunning = cluster(node("control-plane-0", RUNNING), cp1, node("control-plane-2"), worker);
        assertFalse(StartOrder.rejoins(cp1, true, oneOtherRunning), "one running member of three makes no quorum");
        MiniState alone = cluster(node("control-plane-0"), worker);
        assertFalse(StartOrder.rejoins(alone.nodes().get(0), false, alone));
    }

    private static List<String> names(List<MiniState.Node> nodes) {
        return nodes.stream().map(MiniState.Node::name).toList();
    }
}
