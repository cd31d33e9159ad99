package dev.sextant.cli.mini;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.localcluster.mini.MiniCluster;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.mini.report.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;

@Command(name = "stop",
        description = "Power one node of the running mini cluster off and leave it off, as a failed machine: QEMU and "
                + "swtpm stopped, its state disk, volumes and TPM state kept. The other nodes run on; "
                + "'sextant mini reboot NODE' powers it on again.",
        footer = "  sextant mini stop control-plane-0",
        exitCodeList = {" 0:the node is off", " 1:no such node or cluster, or a process survived SIGKILL",
                " 2:usage error, or a file that cannot be used"})
public final class StopCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NODE", description = "the node to power off, e.g. control-plane-0")
    String node;

    @Mixin
    MiniDirOption dir;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try {
            new MiniCluster(dir.layout(), new Progress(out, Instant.now())).stop(node);
        } catch (MiniFailure e) {
            out.flush();
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
            return ExitCodes.REJECTED;
        }
        out.flush();
        return ExitCodes.OK;
    }
}
