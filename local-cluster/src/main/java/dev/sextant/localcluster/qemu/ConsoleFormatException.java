package dev.sextant.localcluster.qemu;

/** A node's console report is missing or malformed. */
public final class ConsoleFormatException extends Exception {
    public ConsoleFormatException(String message) {
        super(message);
    }
}
