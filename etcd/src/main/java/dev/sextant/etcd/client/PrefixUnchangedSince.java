package dev.sextant.etcd.client;

import java.util.Objects;

/**
 * An extra condition of a create-all transaction: no key under {@code prefix} was created or modified
 * after {@code revision} (typically the revision at which the caller counted them). Keys deleted since
 * are not seen: the prefixes it guards are written once and never deleted (docs/cluster-store.md).
 */
public record PrefixUnchangedSince(String prefix, long revision) {
    public PrefixUnchangedSince {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("a guarded prefix must not be empty (it would guard the whole store)");
        }
        if (revision < 0) {
            throw new IllegalArgumentException("a revision is not negative, got " + revision);
        }
    }
}
