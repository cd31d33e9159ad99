package dev.sextant.nodeboot.joinclient;

import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.nodelock.LockHolder;

/** How the join path ended. */
public sealed interface JoinOutcome {
    /** Ticket applied; {@code kubernetes} says whether Kubernetes started, is absent, or failed. */
    record Joined(String endpoint, DriverResult kubernetes) implements JoinOutcome {
    }

    /** Another path holds the node lock (or stop was requested); nothing was changed. */
    record Stopped(String why) implements JoinOutcome {
    }

    /** A fatal error after the lock; the failure handler has been called. */
    record Failed(String reason) implements JoinOutcome {
    }

    static Stopped lockedBy(LockHolder holder) {
        return new Stopped("node is already locked by " + holder.label());
    }
}
