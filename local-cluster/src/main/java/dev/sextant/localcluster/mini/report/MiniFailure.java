package dev.sextant.localcluster.mini.report;

/** Thrown when a mini command cannot do what it was asked; the message names the node and its console log. */
public final class MiniFailure extends Exception {
    public MiniFailure(String message) {
        super(message);
    }

    public MiniFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
