package dev.sextant.imagebuilder;

/** The image could not be built; the message says which step failed and where to look. */
public final class BuildException extends Exception {
    public BuildException(String message) {
        super(message);
    }

    public BuildException(String message, Throwable cause) {
        super(message, cause);
    }
}
