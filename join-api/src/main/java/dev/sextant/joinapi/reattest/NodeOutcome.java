package dev.sextant.joinapi.reattest;

/** What one round concluded about one node. */
public sealed interface NodeOutcome {
    /** Its bound AK quoted an admitted image of this cluster over this round's nonce. */
    record Attested(String imageVersion) implements NodeOutcome {
    }

    /**
     * No evidence of the node's own state this round: no answer, a broken or stale one, or an answer from
     * another machine (a misdirected endpoint). Counts towards {@code UNREACHABLE}, never revokes alone.
     */
    record Missed(String why) implements NodeOutcome {
    }

    /** Evidence that revokes: {@code detail} says what differed (no secret: PCR indices, image versions). */
    record Failed(RevocationReason reason, String detail) implements NodeOutcome {
    }
}
