package dev.sextant.nodeboot.unlock;

/** A key (or a call) that did not unlock the disk; the disk is untouched and the node keeps waiting. */
public final class UnlockRefused extends Exception {
    /** Why, as a gRPC caller may see it. */
    public enum Kind { NOT_WAITING, BUSY, WRONG_DISK, WRONG_KEY, BROKEN }

    private final Kind kind;

    public UnlockRefused(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
