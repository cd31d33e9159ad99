package dev.sextant.housekeeping.discovery;

import org.jgroups.Address;
import org.jgroups.EmptyMessage;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.PhysicalAddress;
import org.jgroups.ViewId;
import org.jgroups.protocols.MERGE3;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two members, m0 the coordinator and m1 not. A member left in a view the rest of the group has
 * left behind is found only if the coordinator hears that view from it; m1 plays that member here
 * by being told, in an INFO from m0, of a view other than its own.
 */
@DisplayName("MERGE3 rounds by coordinators, answered by members that hear of another view")
class CoordinatorMergeTest {
    static final Duration FAILURE_TIMEOUT = Duration.ofSeconds(4);

    /** Below m0's CoordinatorMerge: counts the MERGE3 INFOs each member sends m0. */
    static final class MergeMessagesIn extends Protocol {
        final Map<Address, AtomicInteger> from = new ConcurrentHashMap<>();

        int from(Address member) {
            AtomicInteger n = from.get(member);
            return n == null ? 0 : n.get();
        }

        @Override
        public Object up(Message msg) {
            count(msg);
            return up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            batch.forEach(this::count);
            up_prot.up(batch);
        }

        private void count(Message msg) {
            // MergeHeader names its type (INFO, VIEW_REQ, VIEW_RSP) only in toString(). Not the VIEW_REQs:
            // told of another view, m1's own consistency check asks m0 for its view, answer or not.
            Object header = msg.getHeader(CoordinatorMerge.PROTOCOL_ID);
            if (header != null && header.toString().startsWith("INFO")) {
                from.computeIfAbsent(msg.getSrc(), a -> new AtomicInteger()).incrementAndGet();
            }
        }
    }

    @Test
    @DisplayName("at rest the member sends no INFO; told of another view by the coordinator it answers with its own, once per round interval")
    void memberAnswersAnotherView() throws Exception {
        MergeMessagesIn atCoordinator = new MergeMessagesIn();
        Map<Integer, CoordinatorMerge> merges = new ConcurrentHashMap<>();
        DiscoveryStack.Factory stack = (bind, port, seeds, key, timeout) -> {
            List<Protocol> protocols = new ArrayList<>(DiscoveryStack.build(bind, port, seeds, key, timeout));
            int at = indexOf(protocols, CoordinatorMerge.class);
            merges.put(port, (CoordinatorMerge) protocols.get(at));
            if (merges.size() == 1) {
                protocols.add(at, atCoordinator);
            }
            return protocols;
        };
        try (InJvmCluster cluster = new InJvmCluster(2, 1, FAILURE_TIMEOUT, stack)) {
            cluster.startNext();
            cluster.startNext();
            assertTrue(NetnsCluster.await(Duration.ofSeconds(20), cluster::converged) >= 0, cluster::state);
            CoordinatorMerge coordinator = merges.get(cluster.ports.get(0));
            CoordinatorMerge member = merges.get(cluster.ports.get(1));
            assertTrue(coordinator.isCoord() && !member.isCoord(), "m0 founded the group");
            Address m0 = coordinator.getAddress();
            Address m1 = member.getAddress();

            // Several coordinator rounds (every 1-2 s at this failure timeout), all reporting m1's own view.
            Thread.sleep(5_000);
            assertEquals(0, atCoordinator.from(m1), "INFOs from a member that holds the coordinator's view");

            PhysicalAddress m0Physical = (PhysicalAddress) coordinator.down(new Event(Event.GET_PHYSICAL_ADDRESS, m0));
            member.up(infoFrom(m0, m0Physical, new ViewId(m0, 999)));
            member.up(infoFrom(m0, m0Physical, new ViewId(m0, 1000)));
            assertTrue(NetnsCluster.await(Duration.ofSeconds(5), () -> atCoordinator.from(m1) > 0) >= 0,
                    "m1 did not answer an INFO of another view");
            Thread.sleep(500);
            assertEquals(1, atCoordinator.from(m1), "two INFOs within one round interval, answered once");
        }
    }

    /** An INFO as a coordinator's round sends it: its view id, logical name and physical address. */
    private static Message infoFrom(Address sender, PhysicalAddress physical, ViewId view) {
        return new EmptyMessage().setSrc(sender)
                .putHeader(CoordinatorMerge.PROTOCOL_ID, MERGE3.MergeHeader.createInfo(view, "m0", physical));
    }

    private static int indexOf(List<Protocol> protocols, Class<?> type) {
        for (int i = 0; i < protocols.size(); i++) {
            if (type.isInstance(protocols.get(i))) {
                return i;
            }
        }
        throw new IllegalStateException("no " + type.getSimpleName() + " in the stack");
    }
}
