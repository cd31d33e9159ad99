package dev.sextant.cli.mini;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.localcluster.mini.MiniCluster;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.mini.report.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

@Command(name = "start",
        description = "Boot a mini cluster that 'sextant mini down' stopped (without --purge): every node powered on as "
                + "it was first booted, the control plane recovered with the cluster's own master secret (as "
                + "'sextant recover' does), the workers rejoining; every node must come back with its own disk and "
                + "verify over attested TLS with the cluster's PCR 15. Ends with the summary of 'mini up'.",
        footer = "  sextant mini down && sextant mini start",
        exitCodeList = {" 0:every node is back and verified",
                " 1:a node did not come back or did not verify (the nodes are stopped; the message names the console log)",
                ExitCodes.FAILED_ROW})
public final class StartCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    MiniDirOption dir;

    @Option(names = "--boot-timeout", paramLabel = "MIN",
            description = "minutes to wait for the control plane to be recovered and verified (default: ${DEFAULT-VALUE})")
    long bootTimeoutMinutes = MiniCluster.DEFAULT_BOOT_TIMEOUT.toMinutes();

    @Option(names = "--join-timeout", paramLabel = "MIN",
            description = "minutes to wait for each worker to rejoin after that (default: ${DEFAULT-VALUE})")
    long joinTimeoutMinutes = MiniCluster.DEFAULT_JOIN_TIMEOUT.toMinutes();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = new Progress(out, Instant.now());
        try {
            new MiniCluster(dir.layout(), progress).start(Duration.ofMinutes(bootTimeoutMinutes),
                    Duration.ofMinutes(joinTimeoutMinutes), InProcessCommand.RECOVER, out::println);
        } catch (MiniFailure e) {
            out.flush();
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
            return ExitCodes.REJECTED;
        }
        out.printf("mini start -> summary: %.1f s%n", progress.elapsed().toMillis() / 1000.0);
        out.flush();
        return ExitCodes.OK;
    }
}
