package dev.sextant.attestation.policy;

/** A measurements file could not be read, parsed, signed or verified; the message says which and why. */
public final class MeasurementsException extends Exception {
    public MeasurementsException(String message) {
        super(message);
    }

    public MeasurementsException(String message, Throwable cause) {
        super(message, cause);
    }
}
