package dev.sextant.cli.mini;

import dev.sextant.cli.failure.ExecutionErrorHandler;
import dev.sextant.cli.failure.UsageErrorHandler;
import dev.sextant.cli.init.InitCommand;
import dev.sextant.cli.recover.RecoverCommand;
import dev.sextant.localcluster.mini.OperatorCommand;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One of the operator's own commands run in this process for mini, with the CLI's error path, its
 * output (stdout and stderr) turned into progress lines: mini initializes and recovers exactly as
 * an operator does.
 */
final class InProcessCommand implements OperatorCommand {
    static final InProcessCommand INIT = new InProcessCommand(InitCommand::new);
    static final InProcessCommand RECOVER = new InProcessCommand(RecoverCommand::new);

    private final Supplier<Object> command;

    private InProcessCommand(Supplier<Object> command) {
        this.command = command;
    }

    @Override
    public int run(List<String> args, Consumer<String> output) {
        try (LineWriter lines = new LineWriter(output);
             PrintWriter writer = new PrintWriter(lines, true)) {
            CommandLine cli = new CommandLine(command.get()).setOut(writer).setErr(writer)
                    .setExecutionExceptionHandler(new ExecutionErrorHandler())
                    .setParameterExceptionHandler(new UsageErrorHandler());
            int exit = cli.execute(args.toArray(String[]::new));
            writer.flush();
            return exit;
        }
    }
}
