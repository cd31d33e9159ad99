package dev.sextant.etcd.client;

import java.util.List;

/**
 * One member's view of itself, from its own endpoint: who leads, how far its raft log is committed and
 * applied. A learner has caught up when its applied index reaches what the leader had committed.
 *
 * @param errors alarms and health problems etcd reports (for instance "NOSPACE"), empty when healthy
 */
public record EndpointStatus(String endpoint, long memberId, long leaderId, long raftTerm, long raftIndex,
                             long raftAppliedIndex, boolean learner, String version, List<String> errors) {
    public enum Role { LEADER, FOLLOWER, LEARNER }

    public EndpointStatus {
        errors = List.copyOf(errors);
    }

    public Role role() {
        if (learner) {
            return Role.LEARNER;
        }
        return memberId == leaderId ? Role.LEADER : Role.FOLLOWER;
    }

    public boolean hasLeader() {
        return leaderId != 0;
    }
}
