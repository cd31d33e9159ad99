package dev.sextant.etcd.client;

import java.util.Map;

/**
 * What a conditional write did: {@code written} every entry (at {@code revision}), or nothing; either way
 * {@code read} holds the keys the caller asked to read, as they were in the same transaction (after the
 * write when it was made, before it otherwise), absent keys left out.
 */
public record ConditionalWrite(boolean written, long revision, Map<String, Versioned> read) {
    public ConditionalWrite {
        read = Map.copyOf(read);
    }

    @Override
    public String toString() {
        // The values stay out: what a key holds is never put into a message.
        return "ConditionalWrite[written " + written + ", revision " + revision + ", read keys " + read.keySet() + "]";
    }
}
