package dev.sextant.nodeboot.endpointdiscovery;

import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A coordinator that is finishing a merge has its view handler suspended and discards the LEAVE
 * requests it receives; JGroups then lets the member leave without a new view, and the others would
 * drop it only by failure detection (seen in DiscoveryNetnsTest when a node left right after a
 * healed partition). Here the coordinator's view handler is suspended outright, the worst case of
 * that race.
 */
@DisplayName("A member that leaves")
class LeaveTest {
    @Test
    @DisplayName("takes its records with it within 3 s even when the coordinator discards its leave request (failure timeout 12 s)")
    void withdrawsItsRecordsBeforeLeaving() throws Exception {
        Map<Integer, GMS> membership = new ConcurrentHashMap<>();
        DiscoveryStack.Factory stack = (bind, port, seeds, key, timeout) -> {
            List<Protocol> protocols = DiscoveryStack.build(bind, port, seeds, key, timeout);
            protocols.stream().filter(GMS.class::isInstance).forEach(p -> membership.put(port, (GMS) p));
            return protocols;
        };
        try (InJvmCluster cluster = new InJvmCluster(3, 1, Duration.ofSeconds(12), stack)) {
            for (int i = 0; i < 3; i++) {
                cluster.startNext();
            }
            assertTrue(NetnsCluster.await(Duration.ofSeconds(20), cluster::converged) >= 0,
                    () -> "three members did not converge:\n" + cluster.state());
            assertTrue(cluster.nodes.get(0).viewId().startsWith("[m0|"), "m0, the first member, coordinates");
            GMS coordinator = membership.get(cluster.ports.get(0));
            coordinator.suspendViewHandler();
            try {
                GossipNode leaving = cluster.nodes.remove(2);
                cluster.all.remove(InJvmCluster.record(2));
                leaving.close();

                long took = NetnsCluster.await(Duration.ofSeconds(3), cluster::converged);
                assertTrue(took >= 0, () -> "m2 left, its record stayed:\n" + cluster.state());
                assertEquals(3, cluster.nodes.get(0).members(),
                        "the coordinator still counts m2 a member: its records went by its withdrawal, not by a view");
            } finally {
                coordinator.resumeViewHandler();
            }
        }
    }
}
