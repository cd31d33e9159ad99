package dev.sextant.nodeboot.nodelock;

/** The paths that can make this boot of a node a cluster member; exactly one of them ever does. */
public enum LockHolder {
    INIT("init"),
    JOIN("join"),
    /** A rebooted member whose disk key came back from a join service. */
    REJOIN("rejoin"),
    /** A rebooted control plane whose disk key came from the operator. */
    RECOVERY("recovery"),
    /** PCR 15 was already marked when this process started: a restarted bootstrapper must not bootstrap twice. */
    EARLIER_RUN("an earlier bootstrapper run (PCR 15 is already marked)");

    private final String label;

    LockHolder(String label) {
        this.label = label;
    }

    public String label() { return label; }
}
