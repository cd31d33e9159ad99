package dev.sextant.cli;

import dev.sextant.cli.failure.ExecutionErrorHandler;
import dev.sextant.cli.failure.UsageErrorHandler;
import picocli.CommandLine;

public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The CLI as {@code bin/sextant} runs it, with its error path: what tests should execute too. */
    public static CommandLine commandLine() {
        return new CommandLine(new SextantCommand())
                .setExecutionExceptionHandler(new ExecutionErrorHandler())
                .setParameterExceptionHandler(new UsageErrorHandler());
    }
}
