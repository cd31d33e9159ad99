package dev.sextant.attestation.verify;

/** The single rejection type of every verifier: a {@link Reason} plus a sentence that says what was wrong. */
public final class AttestationRejected extends Exception {
    private final Reason reason;

    public AttestationRejected(Reason reason, String detail) {
        super(detail);
        this.reason = reason;
    }

    public AttestationRejected(Reason reason, String detail, Throwable cause) {
        super(detail, cause);
        this.reason = reason;
    }

    public Reason reason() { return reason; }

    /** "PCR_MISMATCH: PCR 9 (sha256) is ab12… rather than cd34…". */
    @Override
    public String toString() { return reason + ": " + getMessage(); }
}
