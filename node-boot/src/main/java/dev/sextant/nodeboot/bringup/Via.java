package dev.sextant.nodeboot.bringup;

import java.util.Locale;

/** How this boot's membership was obtained; printed as {@code via=} in the status line. */
public enum Via {
    /** The operator initialized this node: it derived every key from the master secret. */
    INIT,
    /** A fresh node received a join ticket. */
    JOIN,
    /** A rebooted node received its disk key back from a join service. */
    REJOIN,
    /** A rebooted control plane received its disk key from the operator. */
    RECOVERY;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Init and join start a member on a fresh disk; rejoin and recovery open one that already is. */
    public boolean firstMembership() {
        return this == INIT || this == JOIN;
    }
}
