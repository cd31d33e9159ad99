package dev.sextant.etcd.client;

/** How many keys start with a prefix, and the store revision at which they were counted. */
public record PrefixCount(long count, long revision) {
}
