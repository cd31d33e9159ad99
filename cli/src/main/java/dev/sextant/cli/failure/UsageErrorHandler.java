package dev.sextant.cli.failure;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.List;

/**
 * A command line picocli could not parse: one line naming the command and the mistake, and where the
 * options are explained, instead of picocli's default of the mistake followed by the whole usage text.
 */
public final class UsageErrorHandler implements CommandLine.IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        PrintWriter err = cmd.getErr();
        err.println(name + ": " + e.getMessage().lines().findFirst().orElse("invalid command line")
                + ": see `" + name + " --help`");
        UnmatchedArgumentException.printSuggestions(e, err);
        if (List.of(args).contains(ExecutionErrorHandler.DEBUG_OPTION)) {
            e.printStackTrace(err);
        }
        err.flush();
        return ExitCodes.FAILED;
    }
}
