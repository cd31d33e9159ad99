package dev.sextant.attestation.issue;

/** The attester could not produce a document (TPM unreachable, TPM error, missing certificate). */
public final class AttestationException extends Exception {
    public AttestationException(String message) {
        super(message);
    }

    public AttestationException(String message, Throwable cause) {
        super(message, cause);
    }
}
