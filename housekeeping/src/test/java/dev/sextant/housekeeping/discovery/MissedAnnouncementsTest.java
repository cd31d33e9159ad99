package dev.sextant.housekeeping.discovery;

import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Members install a view at different moments; an announcement that reaches a member before it counts
 * the sender as a member is lost to it (of ten nodes starting together, several can each be a record
 * short until the periodic re-announce). Here one member loses every announcement multicast to it,
 * the worst case of that race, and still has to learn every record long before the re-announce.
 */
@DisplayName("A member that missed the announcements")
class MissedAnnouncementsTest {
    /** On top of the stack: drops every announcement multicast to this member, delivers everything else. */
    static final class LoseMulticastAnnouncements extends Protocol {
        final LongAdder lost = new LongAdder();

        @Override
        public Object up(Message msg) {
            if (msg.getDest() == null && msg.getLength() > 0) {
                lost.increment();
                return null;
            }
            return up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            if (batch.dest() == null) {
                int before = batch.size();
                batch.removeIf(msg -> msg.getLength() > 0, false);
                lost.add(before - batch.size());
            }
            if (!batch.isEmpty()) {
                up_prot.up(batch);
            }
        }
    }

    @Test
    @DisplayName("a joiner that loses every multicast announcement holds every record within 10 s, not at the 30 s re-announce: it asks each member it holds no entry for")
    void joinerAsksForWhatItMissed() throws Exception {
        AtomicInteger victimPort = new AtomicInteger(-1);
        LoseMulticastAnnouncements loss = new LoseMulticastAnnouncements();
        DiscoveryStack.Factory stack = (bind, port, seeds, key, timeout) -> {
            List<Protocol> protocols = new ArrayList<>(DiscoveryStack.build(bind, port, seeds, key, timeout));
            if (port == victimPort.get()) {
                protocols.add(loss);
            }
            return protocols;
        };
        try (InJvmCluster cluster = new InJvmCluster(4, 1, Duration.ofSeconds(12), stack)) {
            for (int i = 0; i < 3; i++) {
                cluster.startNext();
            }
            assertTrue(NetnsCluster.await(Duration.ofSeconds(20), cluster::converged) >= 0,
                    () -> "three members did not converge:\n" + cluster.state());
            victimPort.set(cluster.ports.get(3));
            GossipNode victim = cluster.startNext();

            // Well inside the 30 s periodic re-announce (InJvmCluster#config), which would also fill the gap.
            long took = NetnsCluster.await(Duration.ofSeconds(10), cluster::converged);
            assertTrue(took >= 0, () -> "the member that lost the multicasts has " + victim.records() + ":\n" + cluster.state());
            assertTrue(loss.lost.sum() > 0, "no multicast announcement was lost, so nothing was tested");
        }
    }
}
