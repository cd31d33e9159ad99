package dev.sextant.measuredboot.predict;

/**
 * The UKI is well-formed, but its PCR values cannot be predicted faithfully (an unknown stub
 * release, a section that makes the stub generate data at boot). Refusing beats guessing: a wrong
 * expected value locks every node out.
 */
public final class UnpredictableUkiException extends Exception {
    public UnpredictableUkiException(String message) {
        super(message);
    }
}
