package dev.sextant.localcluster.mini.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EndpointStatus;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A control plane's etcd member as mini shows it")
class EtcdMemberStateTest {
    private static EndpointStatus status(long member, long leader, boolean learner, List<String> errors) {
        return new EndpointStatus("127.0.0.1:40005", member, leader, 3, 40, 40, learner, "3.4.23", errors);
    }

    @Test
    @DisplayName("is the leader when it leads, a follower when another member does, a learner until promoted")
    void roles() {
        assertEquals("leader, healthy", EtcdMemberState.of(status(7, 7, false, List.of())).describe());
        assertEquals("follower, healthy", EtcdMemberState.of(status(7, 9, false, List.of())).describe());
        assertEquals("learner, healthy", EtcdMemberState.of(status(7, 9, true, List.of())).describe());
    }

    @Test
    @DisplayName("is unhealthy with an alarm, and says so when it knows no leader (no quorum)")
    void health() {
        assertEquals("follower, unhealthy: NOSPACE", EtcdMemberState.of(status(7, 9, false, List.of("NOSPACE"))).describe());
        assertEquals("follower, no leader", EtcdMemberState.of(status(7, 0, false, List.of())).describe());
        assertEquals("unknown, no answer: UNAVAILABLE", EtcdMemberState.unanswered("UNAVAILABLE").describe());
    }

    @Test
    @DisplayName("counts as joined only when it votes and is healthy: a learner, a member without a leader and a silent one do not")
    void votingAndHealthy() {
        assertTrue(EtcdMemberState.of(status(7, 7, false, List.of())).votingAndHealthy());
        assertTrue(EtcdMemberState.of(status(7, 9, false, List.of())).votingAndHealthy());
        assertFalse(EtcdMemberState.of(status(7, 9, true, List.of())).votingAndHealthy());
        assertFalse(EtcdMemberState.of(status(7, 0, false, List.of())).votingAndHealthy());
        assertFalse(EtcdMemberState.unanswered("x").votingAndHealthy());
    }

    @Test
    @DisplayName("shows a worker, which runs no member, as '-'")
    void worker() {
        assertEquals("-", EtcdMemberState.NONE.describe());
    }
}
