package dev.sextant.cli;

import picocli.CommandLine;

/**
 * Turns an exception escaping a command into one line on stderr and exit code 2 (1 is reserved for
 * "checked and rejected"), so a script sees what went wrong without a stack trace.
 */
final class FailureHandler implements CommandLine.IExecutionExceptionHandler {
    static final int FAILED = 2;

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        cmd.getErr().println("sextant " + cmd.getCommandName() + ": " + describe(e));
        if (System.getenv("SEXTANT_DEBUG") != null) {
            e.printStackTrace(cmd.getErr());
        }
        return FAILED;
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
