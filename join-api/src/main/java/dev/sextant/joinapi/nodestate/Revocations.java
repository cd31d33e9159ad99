package dev.sextant.joinapi.nodestate;

import java.util.Map;

/**
 * Every revoked AK with its revocation, and the counter raised with each ({@code revocations/version},
 * 0 before the first): the version of the revocation list made from them.
 */
public record Revocations(long version, Map<String, Revocation> byAk) {
    public Revocations {
        byAk = Map.copyOf(byAk);
    }
}
