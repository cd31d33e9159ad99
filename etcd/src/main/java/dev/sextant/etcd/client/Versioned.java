package dev.sextant.etcd.client;

/** A key's value and the revision it was last modified at: what {@link EtcdClient#putIfUnmodified} compares. */
public record Versioned(String value, long modRevision) {
}
