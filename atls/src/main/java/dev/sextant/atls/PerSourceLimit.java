package dev.sextant.atls;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counts what is in flight per source (unfinished aTLS handshakes; a node's recovery calls), and refuses
 * one over the cap. A source is an IPv4 address,
 * or an IPv6 /64: one host is routinely given a whole /64 and can pick any address in it, so counting
 * IPv6 addresses one by one would cap nothing. Callers behind one NAT share an IPv4 source; the cap
 * is sized for that (docs/security.md).
 */
public final class PerSourceLimit {
    private static final int IPV6_PREFIX_BYTES = 8;

    private final int cap;
    private final ConcurrentMap<String, Integer> open = new ConcurrentHashMap<>();

    public PerSourceLimit(int cap) {
        this.cap = cap;
    }

    /** True if {@code address} may start one more; the caller then owes one {@link #leave}. */
    public boolean tryEnter(InetAddress address) {
        boolean[] entered = {false};
        open.compute(source(address), (source, n) -> {
            int current = n == null ? 0 : n;
            if (current >= cap) {
                return n;
            }
            entered[0] = true;
            return current + 1;
        });
        return entered[0];
    }

    public void leave(InetAddress address) {
        // Removing the entry at zero keeps the map as small as the set of sources mid-handshake.
        open.computeIfPresent(source(address), (source, n) -> n <= 1 ? null : n - 1);
    }

    public int open(InetAddress address) {
        return open.getOrDefault(source(address), 0);
    }

    /** The IPv4 address itself, or the IPv6 address's /64 prefix. */
    static String source(InetAddress address) {
        if (address instanceof Inet6Address) {
            byte[] prefix = new byte[IPV6_PREFIX_BYTES];
            System.arraycopy(address.getAddress(), 0, prefix, 0, IPV6_PREFIX_BYTES);
            return HexFormat.of().formatHex(prefix) + "/64";
        }
        return address.getHostAddress();
    }
}
