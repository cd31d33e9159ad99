package dev.sextant.cli.recover;

import dev.sextant.attestation.verify.AttestationRejected;

/** What one attempt at recovering a node ended with. */
sealed interface RecoveryOutcome {
    /** The node reported its disk open with the key. */
    record Opened(String diskUuid, String since) implements RecoveryOutcome {
    }

    /** The node failed verification in the handshake: nothing was sent. */
    record Rejected(AttestationRejected rejection) implements RecoveryOutcome {
    }

    /** The node's disk does not wait for a key: nothing was sent. */
    record NotWaiting(String diskUuid) implements RecoveryOutcome {
    }

    /** The node (verified) refused, or answered what cannot be right; {@code why} is printable. */
    record Refused(String why) implements RecoveryOutcome {
    }

    /** No answer yet (nothing listens, the connection dropped, no answer in time): worth another try. */
    record Unreachable(String why) implements RecoveryOutcome {
    }
}
