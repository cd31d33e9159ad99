package dev.sextant.etcd.duty;

import dev.sextant.etcd.client.Fence;

/**
 * One tenure of a duty: the lease that holds the key and the revision the key was created at.
 * {@code createRevision} is the tenure's fencing token: a write made under the duty can compare the
 * key's create revision with it in its own transaction, and so can never land after the tenure ended,
 * however long the writer was paused ({@link #fence()}, {@code EtcdClient.fencedPutAll}).
 */
public record Holding(String key, String holderName, long leaseId, long createRevision) {
    /** The condition a write made under this tenure carries. */
    public Fence fence() {
        return new Fence(key, createRevision);
    }
}
