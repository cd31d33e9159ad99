package dev.sextant.etcd.client;

/** What a create-if-absent transaction did: wrote the key, or found it present and read it. */
public sealed interface CreateIfAbsentResult {
    /** The key was absent and is now written (under the lease given), at {@code revision}. */
    record Created(long revision) implements CreateIfAbsentResult {
    }

    /**
     * Nothing was written: the key exists, read in the same transaction. {@code leaseId} is the lease it is
     * bound to (0: none), {@code createRevision} the revision it was created at, {@code readRevision} the
     * store's revision the transaction read it at (a watch from the next one misses no change after it).
     * A call retried after a lost answer finds its own first attempt here: the value and lease it asked for.
     */
    record Present(String value, long leaseId, long createRevision, long readRevision) implements CreateIfAbsentResult {
        @Override
        public String toString() {
            // The value stays out: what a key holds is never put into a message.
            return "Present[lease " + leaseId + ", created at revision " + createRevision + ", read at " + readRevision + "]";
        }
    }
}
