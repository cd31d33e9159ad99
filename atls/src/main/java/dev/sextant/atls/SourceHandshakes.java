package dev.sextant.atls;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Counts unfinished handshakes per source address, and refuses one over the cap. */
final class SourceHandshakes {
    private final int cap;
    private final ConcurrentMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

    SourceHandshakes(int cap) {
        this.cap = cap;
    }

    /** True if {@code source} may start one more handshake; the caller then owes one {@link #leave}. */
    boolean tryEnter(InetAddress source) {
        boolean[] entered = {false};
        open.compute(source, (address, n) -> {
            int current = n == null ? 0 : n;
            if (current >= cap) {
                return n;
            }
            entered[0] = true;
            return current + 1;
        });
        return entered[0];
    }

    void leave(InetAddress source) {
        // Removing the entry at zero keeps the map as small as the set of sources mid-handshake.
        open.computeIfPresent(source, (address, n) -> n <= 1 ? null : n - 1);
    }

    int open(InetAddress source) {
        return open.getOrDefault(source, 0);
    }
}
