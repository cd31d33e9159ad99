package dev.sextant.nodeboot.deploy;

/** The cluster services could not be deployed; the message says which step and why. */
public final class ClusterServicesException extends Exception {
    public ClusterServicesException(String message) {
        super(message);
    }

    public ClusterServicesException(String message, Throwable cause) {
        super(message, cause);
    }
}
