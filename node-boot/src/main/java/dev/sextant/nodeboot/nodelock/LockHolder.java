package dev.sextant.nodeboot.nodelock;

/** The two paths that can turn a fresh node into a cluster member; exactly one of them ever does. */
public enum LockHolder {
    INIT("init"),
    JOIN("join"),
    /** PCR 15 was already marked when this process started: a restarted bootstrapper must not bootstrap twice. */
    EARLIER_RUN("an earlier bootstrapper run (PCR 15 is already marked)");

    private final String label;

    LockHolder(String label) {
        this.label = label;
    }

    public String label() { return label; }
}
