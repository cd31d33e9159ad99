package dev.sextant.housekeeping.discovery;

import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A coordinator that is finishing a merge has its view handler suspended and discards the LEAVE
 * requests it receives; JGroups then lets the member leave without a new view, and the others would
 * drop it only by failure detection (seen in DiscoveryNetnsTest when a node left right after a
 * healed partition). Here the coordinator's view handler is suspended outright, the worst case of
 * that race. In that same merge a member may drop the leaving node's multicasts while it does not yet
 * count it a member, and then hold its later ones back for a retransmission a node that has left
 * never makes: the second case drops all of the leaving node's last multicasts.
 */
@DisplayName("A member that leaves")
class LeaveTest {
    /**
     * Generous for a loaded machine. The time is not what shows the withdrawal worked: the suspended
     * coordinator installs no view meanwhile, so neither the leave nor failure detection can remove
     * the records, and the rows check that no view did.
     */
    private static final Duration BOUND = Duration.ofSeconds(60);
    /** Each member's GMS and a DISCARD above its transport (inert until told to drop), by port. */
    private final Map<Integer, GMS> membership = new ConcurrentHashMap<>();
    private final Map<Integer, DISCARD> discards = new ConcurrentHashMap<>();
    private final DiscoveryStack.Factory stack = (bind, port, seeds, key, timeout) -> {
        List<Protocol> protocols = new ArrayList<>(DiscoveryStack.build(bind, port, seeds, key, timeout));
        DISCARD discard = new DISCARD();
        protocols.add(1, discard);
        discards.put(port, discard);
        protocols.stream().filter(GMS.class::isInstance).forEach(p -> membership.put(port, (GMS) p));
        return protocols;
    };

    @Test
    @DisplayName("takes its records with it, with no new view, even when the coordinator discards its leave request")
    void withdrawsItsRecordsBeforeLeaving() throws Exception {
        leaveWithTheLeaveDiscarded(leaving -> { });
    }

    @Test
    @DisplayName("takes its records with it, with no new view, even when none of its last multicasts arrives, as at a "
            + "member still waiting for the ones it dropped before the merge view")
    void withdrawsItsRecordsMemberByMember() throws Exception {
        leaveWithTheLeaveDiscarded(leavingPort -> discards.get(leavingPort).dropDownMulticasts(1_000));
    }

    /** Three members; m2 leaves while the coordinator's view handler is suspended (the worst case of that race). */
    private void leaveWithTheLeaveDiscarded(IntConsumer beforeLeaving) throws Exception {
        try (InJvmCluster cluster = new InJvmCluster(3, 1, Duration.ofSeconds(12), stack)) {
            for (int i = 0; i < 3; i++) {
                cluster.startNext();
            }
            assertTrue(NetnsCluster.await(BOUND, cluster::converged) >= 0,
                    () -> "three members did not converge:\n" + cluster.state());
            assertTrue(cluster.nodes.get(0).viewId().startsWith("[m0|"), "m0, the first member, coordinates");
            GMS coordinator = membership.get(cluster.ports.get(0));
            coordinator.suspendViewHandler();
            try {
                beforeLeaving.accept(cluster.ports.get(2));
                GossipNode leaving = cluster.nodes.remove(2);
                cluster.all.remove(InJvmCluster.record(2));
                leaving.close();

                long took = NetnsCluster.await(BOUND, cluster::converged);
                assertTrue(took >= 0, () -> "m2 left, its record stayed:\n" + cluster.state());
                System.out.printf("FIGURE discovery: a leaving member's records gone at the others took %d ms (bound %d s)%n",
                        took, BOUND.toSeconds());
                for (GossipNode member : cluster.nodes) {
                    assertEquals(3, member.members(), "every member still counts m2 a member: its records went by its"
                            + " withdrawal, not by a view");
                }
            } finally {
                coordinator.resumeViewHandler();
            }
        }
    }
}
