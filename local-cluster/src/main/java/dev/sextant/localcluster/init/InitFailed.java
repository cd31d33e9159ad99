package dev.sextant.localcluster.init;

/** The node reported that init failed: its error, and the journal it sent after it (possibly empty). */
public final class InitFailed extends Exception {
    private final byte[] journal;

    public InitFailed(String error, byte[] journal) {
        super(error);
        this.journal = journal.clone();
    }

    public byte[] journal() {
        return journal.clone();
    }
}
