package dev.sextant.localcluster.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.Accel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The cluster mini up plans")
class MiniUpPlanTest {
    private static final String EK_CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    private static MiniCluster.UpOptions options(int controlPlanes, int workers) {
        return new MiniCluster.UpOptions(controlPlanes, workers, Path.of("image"), Optional.empty(), Accel.TCG, false,
                Duration.ofMinutes(1), Duration.ofMinutes(1));
    }

    private static MiniUp.Plan plan(int controlPlanes, int workers) {
        return MiniUp.plan(options(controlPlanes, workers), IntStream.iterate(40000, p -> p + 1).iterator()::nextInt);
    }

    @Test
    @DisplayName("takes an odd number of control planes from 1 to 7 and refuses any other, naming the rule")
    void oddControlPlanes() {
        for (int n : List.of(1, 3, 5, 7)) {
            assertEquals(Optional.empty(), MiniCluster.UpOptions.controlPlanesProblem(n));
        }
        for (int n : List.of(0, 2, 4, 6, 8, 9, -1)) {
            String problem = MiniCluster.UpOptions.controlPlanesProblem(n).orElseThrow();
            assertTrue(problem.startsWith("--control-planes must be odd, between 1 and 7") && problem.endsWith("got " + n),
                    problem);
        }
        assertThrows(IllegalArgumentException.class, () -> options(2, 1));
    }

    @Test
    @DisplayName("names the control planes first, then the workers, each control plane with its etcd forwards")
    void nodesInOrder() {
        MiniUp.Plan plan = plan(3, 2);
        assertEquals(List.of("control-plane-0", "control-plane-1", "control-plane-2", "worker-0", "worker-1"),
                List.copyOf(plan.nodes().keySet()));
        assertEquals(List.of("control-plane-0", "control-plane-1", "control-plane-2"), plan.controlPlanes());
        for (String cp : plan.controlPlanes()) {
            assertTrue(plan.ports().ports(cp).keySet().containsAll(List.of(NodeRole.ETCD_CLIENT_PORT, NodeRole.ETCD_PEER_PORT)));
        }
    }

    @Test
    @DisplayName("initializes control-plane-0 alone; the other control planes join as control planes and every other"
            + " node is told of every control plane's join service")
    void settingsPerRole() {
        MiniUp.Plan plan = plan(3, 1);
        Map<String, Map<String, String>> settings = MiniUp.settings(plan, new byte[] {1}, new byte[16], EK_CA);
        String joinEndpoints = "10.0.2.2:40002,10.0.2.2:40009,10.0.2.2:40016";
        assertTrue(settings.get("control-plane-0").containsKey("sextant.init-secret-hash"));
        assertFalse(settings.get("control-plane-0").containsKey("sextant.join-endpoints"));
        assertEquals("10.0.2.2:40006:40005", settings.get("control-plane-0").get("sextant.etcd-advertise"));
        for (String cp : List.of("control-plane-1", "control-plane-2")) {
            assertEquals("true", settings.get(cp).get("sextant.control-plane"));
            assertEquals(joinEndpoints, settings.get(cp).get("sextant.join-endpoints"));
            assertFalse(settings.get(cp).containsKey("sextant.init-secret-hash"));
        }
        assertEquals("10.0.2.2:40020:40019", settings.get("control-plane-2").get("sextant.etcd-advertise"));
        assertEquals(joinEndpoints, settings.get("worker-0").get("sextant.join-endpoints"));
        assertFalse(settings.get("worker-0").containsKey("sextant.control-plane"));
    }

    @Test
    @DisplayName("with one control plane, makes today's cluster: the workers' one join service is control-plane-0's")
    void oneControlPlane() {
        MiniUp.Plan plan = plan(1, 1);
        assertEquals("10.0.2.2:40002", MiniUp.settings(plan, new byte[] {1}, new byte[16], EK_CA)
                .get("worker-0").get("sextant.join-endpoints"));
    }
}
