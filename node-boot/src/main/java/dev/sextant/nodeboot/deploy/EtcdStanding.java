package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.client.EndpointStatus;
import java.util.Locale;

/**
 * What this node is in the cluster's etcd, as its status line says ({@code etcd=member|learner|none}): a voting
 * member (leader or follower), a learner still catching up, or nothing (a worker, or services run by Kubernetes).
 */
public enum EtcdStanding {
    MEMBER, LEARNER, NONE;

    /** From the member's own answer to a status call. */
    public static EtcdStanding of(EndpointStatus status) {
        return status.learner() ? LEARNER : MEMBER;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
