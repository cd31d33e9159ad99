package dev.sextant.etcd.client;

import java.time.Duration;

/**
 * A lease etcd granted: its ID and the time-to-live etcd chose (at least what was asked; etcd raises a
 * TTL below its minimum, 2 s with its default election timeout).
 */
public record Lease(long id, long ttlSeconds) {
    public Duration ttl() {
        return Duration.ofSeconds(ttlSeconds);
    }
}
