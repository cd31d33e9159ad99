package dev.sextant.cli.mini;

import dev.sextant.cli.failure.ExecutionErrorHandler;
import dev.sextant.cli.failure.UsageErrorHandler;
import dev.sextant.cli.init.InitCommand;
import dev.sextant.cli.recover.RecoverCommand;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.operator.OperatorInit;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The operator's own commands run in this process for mini, with the CLI's error path, their
 * output (stdout and stderr) turned into progress lines: mini initializes and recovers exactly as
 * an operator does, and takes what {@code sextant init} got from the node from the command itself.
 */
final class InProcessCommand {
    static final OperatorInit INIT = (args, output) -> {
        InitCommand init = new InitCommand();
        int exit = run(init, args, output);
        return new OperatorInit.Outcome(exit, exit == 0 ? init.result() : Optional.empty());
    };
    static final OperatorCommand RECOVER = (args, output) -> run(new RecoverCommand(), args, output);
    static final OperatorCommand PUBLISH = (args, output) -> run(new dev.sextant.cli.measurements.PublishCommand(), args, output);
    static final OperatorCommand REVOKE = (args, output) -> run(new dev.sextant.cli.operator.RevokeCommand(), args, output);
    static final OperatorCommand CLUSTER_STATUS = (args, output) -> run(new dev.sextant.cli.operator.ClusterStatusCommand(), args, output);

    private InProcessCommand() {
    }

    private static int run(Object command, List<String> args, Consumer<String> output) {
        try (LineWriter lines = new LineWriter(output);
             PrintWriter writer = new PrintWriter(lines, true)) {
            CommandLine cli = new CommandLine(command).setOut(writer).setErr(writer)
                    .setExecutionExceptionHandler(new ExecutionErrorHandler())
                    .setParameterExceptionHandler(new UsageErrorHandler());
            int exit = cli.execute(args.toArray(String[]::new));
            writer.flush();
            return exit;
        }
    }
}
