package dev.sextant.joinapi.nodestate;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import java.time.Instant;
import java.util.Objects;

/**
 * Why and when a machine was revoked, {@code revoked/<ak>}: final for that AK. {@code reason} is the
 * refusal code, optionally followed by ": " and what it names ({@code PCR_MISMATCH: PCR 4 differs},
 * {@code OPERATOR}); {@code by} who revoked it (the holder's node name, or {@link #BY_OPERATOR}).
 */
public record Revocation(String node, String reason, Instant at, String by) {
    /** {@code by} of a revocation the operator asked for ({@code sextant revoke}). */
    public static final String BY_OPERATOR = "operator";
    /** The reason of a revocation the operator asked for. */
    public static final String OPERATOR = "OPERATOR";

    public Revocation {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(by, "by");
        if (reason.isBlank()) {
            throw new IllegalArgumentException("a revocation names its reason");
        }
    }

    /**
     * What a ticket request of the revoked AK gets: PERMISSION_DENIED, naming the node, when and why (the
     * reason is the re-attestation's finding or the operator's word, never a secret); the reason's code
     * ({@link #reasonCode()}) in the refusal's detail, so the node can tell this refusal, which no retry
     * changes, from any other and stop asking.
     */
    public Refusal refusal() {
        return Refusal.detailed(JoinRefusal.REVOKED, "node " + node + " was revoked at " + at + ": " + reason
                + "; the machine may come back only as a new machine (a new TPM)", reasonCode());
    }

    /** The refusal code that opens {@code reason} ({@code PCR_MISMATCH} of {@code PCR_MISMATCH: PCR 4 differs}); {@code UNKNOWN} for a reason that opens with none. */
    public String reasonCode() {
        String code = reason.split(": ", 2)[0];
        return code.matches("[A-Z][A-Z0-9_]{0,63}") ? code : "UNKNOWN";
    }
}
