package dev.sextant.nodeboot.joinclient;

import dev.sextant.nodeboot.bringup.BringUpOutcome;
import dev.sextant.nodeboot.nodelock.LockHolder;

/** How the join path ended. */
public sealed interface JoinOutcome {
    /** The ticket's membership was brought up; {@code bootstrapped} is what the status line says. */
    record Joined(String endpoint, BringUpOutcome.Bootstrapped bootstrapped) implements JoinOutcome {
    }

    /** Nothing was changed: another path holds the node lock, stop was requested, or this node cannot join as configured. */
    record Stopped(String why) implements JoinOutcome {
    }

    /** A fatal error after the lock; the failure handler has been called. */
    record Failed(String reason) implements JoinOutcome {
    }

    static Stopped lockedBy(LockHolder holder) {
        return new Stopped("node is already locked by " + holder.label());
    }
}
