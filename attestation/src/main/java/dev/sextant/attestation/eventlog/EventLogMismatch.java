package dev.sextant.attestation.eventlog;

/**
 * The event log does not replay to the quoted PCR values, or an event cannot be replayed at all. The
 * verifier turns it into its own rejection; this package knows nothing of verdicts.
 */
public final class EventLogMismatch extends Exception {
    public EventLogMismatch(String message) {
        super(message);
    }
}
