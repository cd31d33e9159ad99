package dev.sextant.diskcrypt;

/** The state disk could not be checked or changed; the message says which step and why. */
public final class DiskCryptException extends Exception {
    public DiskCryptException(String message) {
        super(message);
    }

    public DiskCryptException(String message, Throwable cause) {
        super(message, cause);
    }
}
