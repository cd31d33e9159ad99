package dev.sextant.kms;

/** The master secret or salt cannot be used; the service must not start. Messages never carry key bytes. */
public final class MasterSecretException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    MasterSecretException(String message, Throwable cause) {
        super(message, cause);
    }
}
