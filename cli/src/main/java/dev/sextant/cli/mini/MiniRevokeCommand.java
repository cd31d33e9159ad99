package dev.sextant.cli.mini;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.localcluster.mini.files.MiniState;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "revoke", footer = "  sextant mini revoke worker-0",
        description = "Revoke one node of the mini cluster as the operator does ('sextant revoke' against a control "
                + "plane's join service, with the cluster's master secret and measurements): its machine gets no join "
                + "or rejoin ticket again.",
        exitCodeList = {" 0:the node is revoked (now, or before)", " 1:the join service failed the verification",
                ExitCodes.FAILED_ROW, " 3:no mini cluster in --dir"})
public final class MiniRevokeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NODE", description = "the node name, e.g. worker-0")
    String node;

    @Mixin
    MiniDirOption dir;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Optional<MiniState> state = MiniState.read(dir.layout().stateFile());
        if (state.isEmpty()) {
            out.println("no mini cluster in " + dir.layout().dir() + "; start one with 'sextant mini up'");
            return StatusCommand.NO_CLUSTER;
        }
        StringBuilder whyNot = new StringBuilder();
        Optional<List<String>> operator = MiniOperator.args(dir.layout(), state.get(), whyNot);
        if (operator.isEmpty()) {
            spec.commandLine().getErr().println("sextant mini revoke: cannot revoke: " + whyNot);
            return ExitCodes.FAILED;
        }
        List<String> args = new ArrayList<>(List.of(node));
        args.addAll(operator.get());
        return InProcessCommand.REVOKE.run(args, out::println);
    }
}
