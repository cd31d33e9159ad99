package dev.sextant.etcd.client;

/**
 * A write's condition that a tenure still lasts: the key that names the holder still exists, created at
 * {@code createRevision} (the same key created again by the next holder has another create revision).
 */
public record Fence(String key, long createRevision) {
    public Fence {
        if (createRevision <= 0) {
            throw new IllegalArgumentException("a fence's create revision is positive, got " + createRevision);
        }
    }
}
