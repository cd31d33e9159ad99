package dev.sextant.joinapi.reattest;

import dev.sextant.joinapi.nodestate.AttestationRecord;
import java.time.Instant;
import java.util.Optional;

/**
 * What a round's outcome does to a node's state (docs/re-attestation.md): attested resets the missed
 * rounds; a missed round makes it {@code unreachable} until it has missed {@code missed-periods} in a
 * row, which revokes it ({@code UNREACHABLE}); failed evidence revokes it at once with its reason.
 * Pure: the duty writes what it returns.
 */
public sealed interface Transition {
    /** The node's new record, written as it is. */
    record Record(AttestationRecord attestation) implements Transition {
    }

    /**
     * The node is revoked: {@code reason} is the code followed by what it names ("PCR_MISMATCH: ..."), as
     * {@code revoked/<ak>} and the refusals of its later tickets carry it.
     */
    record Revoke(RevocationReason code, String reason) implements Transition {
    }

    static Transition after(Optional<AttestationRecord> previous, NodeOutcome outcome, Instant now, int missedPeriods) {
        if (outcome instanceof NodeOutcome.Attested attested) {
            return new Record(AttestationRecord.attested(now, attested.imageVersion()));
        }
        if (outcome instanceof NodeOutcome.Failed failed) {
            return new Revoke(failed.reason(), failed.reason() + ": " + failed.detail());
        }
        NodeOutcome.Missed missed = (NodeOutcome.Missed) outcome;
        AttestationRecord unreachable = AttestationRecord.missedAfter(previous, missed.why());
        if (unreachable.missed() >= missedPeriods) {
            return new Revoke(RevocationReason.UNREACHABLE, RevocationReason.UNREACHABLE + ": missed " + unreachable.missed()
                    + " rounds in a row (the last: " + missed.why() + ")");
        }
        return new Record(unreachable);
    }
}
