package dev.sextant.cli.failure;

/**
 * A failure worded for the person at the terminal: what (file, endpoint, option) is wrong, how, and
 * what to do about it. The {@link ExecutionErrorHandler} prints the message after the command's full name
 * and exits {@value ExitCodes#FAILED}; the cause is shown only with {@code --debug}.
 */
public final class CliFailure extends RuntimeException {
    public CliFailure(String message) {
        super(message);
    }

    public CliFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
