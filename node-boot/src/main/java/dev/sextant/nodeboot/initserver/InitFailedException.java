package dev.sextant.nodeboot.initserver;

/** Init stopped; the message is what the operator sees before the journal. */
public final class InitFailedException extends Exception {
    public InitFailedException(String message) {
        super(message);
    }

    public InitFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
