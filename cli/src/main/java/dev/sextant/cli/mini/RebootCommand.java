package dev.sextant.cli.mini;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.localcluster.mini.MiniCluster;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.mini.report.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

@Command(name = "reboot",
        description = "Power-cycle one node of the running mini cluster (or power on one 'sextant mini stop' left off): "
                + "QEMU and swtpm stopped, started again on the "
                + "same TPM state and state disk with the same arguments (the previous console kept as "
                + "console.<n>.log). A control plane is recovered with the cluster's master secret, a worker rejoins; "
                + "then the node must report the same disk and verify over attested TLS with the cluster's PCR 15. "
                + "Prints the time from power-on to verified.",
        footer = "  sextant mini reboot worker-0",
        exitCodeList = {" 0:the node is back and verified",
                " 1:the node did not come back or did not verify (it keeps running; the message names its console log)",
                ExitCodes.FAILED_ROW})
public final class RebootCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NODE", description = "the node to power-cycle, e.g. worker-0")
    String node;

    @Mixin
    MiniDirOption dir;

    @Option(names = "--timeout", paramLabel = "MIN",
            description = "minutes to wait for the node to come back (default: ${DEFAULT-VALUE})")
    long timeoutMinutes = MiniCluster.DEFAULT_BOOT_TIMEOUT.toMinutes();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = new Progress(out, Instant.now());
        try {
            new MiniCluster(dir.layout(), progress).reboot(node, Duration.ofMinutes(timeoutMinutes),
                    InProcessCommand.RECOVER, out::println);
        } catch (MiniFailure e) {
            out.flush();
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
            return ExitCodes.REJECTED;
        }
        out.flush();
        return ExitCodes.OK;
    }
}
