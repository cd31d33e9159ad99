package dev.sextant.etcd.duty;

import java.time.Duration;

/**
 * Which duty, who asks for it, and for how long a lease holds it.
 *
 * @param key        the etcd key whose holder has the duty, e.g. {@code /sextant/v1/reattest/holder}
 * @param holderName this process's name, the key's value while it holds the duty (a node name)
 * @param term       the lease's TTL: how long the duty outlives a holder that stopped renewing (whole
 *                   seconds; etcd's minimum is 2 s); also the bound on how long a cut-off holder believes
 *                   it holds
 */
public record DutyConfig(String key, String holderName, Duration term) {
    /** {@code sextant.join.reattest.lease}'s default (docs/re-attestation.md). */
    public static final Duration DEFAULT_TERM = Duration.ofSeconds(15);

    public DutyConfig {
        if (key == null || !key.startsWith("/") || key.length() < 2) {
            throw new IllegalArgumentException("a duty's key is an absolute etcd key such as /sextant/v1/reattest/holder, got \"" + key + "\"");
        }
        if (holderName == null || holderName.isBlank()) {
            throw new IllegalArgumentException("a duty holder needs a name (its node name)");
        }
        if (term == null || term.getNano() != 0 || term.getSeconds() < 2) {
            throw new IllegalArgumentException("a duty's term is a lease TTL of whole seconds, at least 2 (etcd's minimum); got " + term);
        }
    }

    public DutyConfig(String key, String holderName) {
        this(key, holderName, DEFAULT_TERM);
    }

    /** How often a candidate tries to take the duty, and how often a holder renews: a third of the term. */
    public Duration beat() {
        return term.dividedBy(3);
    }
}
