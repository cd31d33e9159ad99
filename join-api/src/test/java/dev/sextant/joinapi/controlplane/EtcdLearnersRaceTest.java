package dev.sextant.joinapi.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.EtcdMember;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.proto.v1.EtcdPeer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A member removed between the join service's member list and the change it decided on that list, on a
 * real three-member etcd: the removal is made from the service's own {@link EtcdLearners.AfterList} (the
 * window a racing join service would hit), so it lands there every time.
 */
@DisplayName("A control plane's join whose etcd member list goes stale before the change: the join service lists again itself")
class EtcdLearnersRaceTest {
    private final LoopbackPorts ports = new LoopbackPorts();
    private final List<List<EtcdMember>> lists = new CopyOnWriteArrayList<>();
    private TestClusterStore etcd;
    private EtcdClient admin;
    private EtcdConnection connection;
    private LearnerPromotion promotion;

    @BeforeEach
    void start() {
        etcd = new TestClusterStore(3);
        admin = etcd.admin();
        connection = new EtcdConnection(new EtcdClientConfig(etcd.endpoints(), etcd.etcd().clientTls("join-service"),
                Duration.ofSeconds(2)));
        promotion = new LearnerPromotion(connection, Clock.systemUTC(), Duration.ofSeconds(30)); // outlasts the test: the learner never starts
    }

    @AfterEach
    void stop() throws Exception {
        promotion.close();
        connection.close();
        etcd.close();
    }

    /** A member that does not lead: removing it leaves a leader and a quorum of two. */
    private EtcdMember follower() {
        for (String name : etcd.memberNames()) {
            EndpointStatus s = admin.status(etcd.etcd().member(name).clientEndpoint());
            if (s.memberId() != s.leaderId()) {
                return admin.members().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
            }
        }
        throw new IllegalStateException("no follower among " + etcd.memberNames());
    }

    /**
     * Removes {@code member}; etcd's strict reconfiguration check refuses ("unhealthy cluster") until its
     * leader has been connected to every voter for five seconds, which a cluster just started has not.
     */
    private void removeWhenAllowed(EtcdMember member) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(20);
        while (true) {
            try {
                admin.remove(member.id());
                return;
            } catch (EtcdException e) {
                if (!e.getMessage().contains("unhealthy cluster") || Instant.now().isAfter(deadline)) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    @Test
    @DisplayName("a started member of the joining node's name, listed under another peer URL (it came back without its data), removed by someone else after the service listed it: the service's own removal is NOT_FOUND, it lists again and adds the node's learner; the join succeeds with the new member in the initial cluster, the old one gone")
    void memberRemovedBetweenListAndReplace() throws Exception {
        EtcdMember old = follower();
        EtcdLearners learners = new EtcdLearners(connection, Clock.systemUTC(), promotion, members -> {
            lists.add(members);
            if (lists.size() == 1) {
                removeWhenAllowed(old); // what a racing join service replacing the same node does
            }
        });
        String peerUrl = "https://127.0.0.1:" + ports.next();
        EtcdPeer node = EtcdPeer.newBuilder().setName(old.name()).setPeerUrl(peerUrl)
                .setClientUrl("https://127.0.0.1:" + ports.next()).build();

        EtcdLearners.Learner learner = learners.add(node);

        assertEquals(2, lists.size(), "listed again after NOT_FOUND, once: " + lists);
        assertTrue(lists.get(0).stream().anyMatch(m -> m.id() == old.id()), "the first list had the old member");
        assertTrue(lists.get(1).stream().noneMatch(m -> m.id() == old.id()), "the second did not");
        assertEquals(List.of(peerUrl), learner.member().peerUrls());
        assertTrue(learner.member().learner());
        Map<String, String> cluster = learner.cluster().stream().collect(Collectors.toMap(EtcdPeer::getName, EtcdPeer::getPeerUrl));
        assertEquals(peerUrl, cluster.get(old.name()), "the initial cluster names the node under its new peer URL: " + cluster);
        assertEquals(3, cluster.size(), cluster.toString());
        List<EtcdMember> now = admin.members();
        assertTrue(now.stream().noneMatch(m -> m.id() == old.id()), "the old member is gone: " + now);
        assertEquals(1, now.stream().filter(m -> m.peerUrls().contains(peerUrl)).count(), "one learner for the node: " + now);
    }
}
