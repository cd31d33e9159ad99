package dev.sextant.localcluster.mini.node;

import dev.sextant.etcd.client.EndpointStatus;
import java.util.Locale;

/**
 * A control plane's etcd member as its own client port answers: its place in the cluster (leader,
 * follower, learner) and whether it is healthy (it knows a leader and reports no alarm), or why it
 * did not answer.
 */
public record EtcdMemberState(String role, String health) {
    /** What a worker, which runs no member, shows. */
    public static final EtcdMemberState NONE = new EtcdMemberState("-", "");

    public static EtcdMemberState of(EndpointStatus status) {
        String health = !status.errors().isEmpty() ? "unhealthy: " + String.join(", ", status.errors())
                : !status.hasLeader() ? "no leader" : "healthy";
        return new EtcdMemberState(status.role().name().toLowerCase(Locale.ROOT), health);
    }

    public static EtcdMemberState unanswered(String why) {
        return new EtcdMemberState("unknown", "no answer: " + why);
    }

    /** A voting member (leader or follower) with a leader and no alarm: what every control plane is once joined. */
    public boolean votingAndHealthy() {
        return (role.equals("leader") || role.equals("follower")) && health.equals("healthy");
    }

    /** "follower, healthy": one summary or status cell. */
    public String describe() {
        return health.isEmpty() ? role : role + ", " + health;
    }
}
