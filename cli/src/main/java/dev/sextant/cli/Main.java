package dev.sextant.cli;

import picocli.CommandLine;

public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return new CommandLine(new SextantCommand())
                .setExecutionExceptionHandler(new FailureHandler());
    }
}
