package dev.sextant.cli.mini;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.mini.report.Progress;
import dev.sextant.localcluster.mini.upgrade.MiniUpgrade;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

@Command(name = "upgrade",
        description = "Roll the running mini cluster to the node image built in --image, one node at a time, control planes "
                + "first: the measurement set in force gains the new image and is published; each node is powered off, "
                + "boots the new image with its state disk and TPM kept, and must come back with the same disk and "
                + "since, proving the new version over attested TLS, before the next one moves. A node that does not "
                + "gets its old boot disk back and the upgrade stops there, naming it and its console log; nothing is "
                + "retired, and running the command again resumes. At the end a set without the old image retires it. "
                + "Prints per node: old -> new version, power-off -> verified seconds, and a summary table.",
        footer = {"  sextant image build --out out/image-b --image-version 2.0 \\",
                "      --upgrades-from out/image --ek-ca out/mini/ca/ca-cert.pem",
                "  sextant mini upgrade --image out/image-b"},
        exitCodeList = {" 0:every node runs the new image, verified; the old one is retired",
                " 1:a node did not come back on the new image (rolled back; the message names it and its console log)",
                ExitCodes.FAILED_ROW})
public final class MiniUpgradeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--image", required = true, paramLabel = "DIR",
            description = "an image built with 'sextant image build --out DIR' and this cluster's EK CA")
    Path image;

    @Mixin
    MiniDirOption dir;

    @Option(names = "--timeout", paramLabel = "MIN",
            description = "minutes each node has to come back on the new image (default: ${DEFAULT-VALUE})")
    long timeoutMinutes = MiniUpgrade.DEFAULT_NODE_TIMEOUT.toMinutes();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = new Progress(out, Instant.now());
        try {
            MiniUpgrade.Done done = new MiniUpgrade(dir.layout(), progress).upgrade(image, Duration.ofMinutes(timeoutMinutes),
                    InProcessCommand.PUBLISH, InProcessCommand.RECOVER);
            done.report().moved().forEach(m -> out.println(m.line()));
            done.render().forEach(out::println);
        } catch (MiniFailure e) {
            out.flush();
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
            return ExitCodes.REJECTED;
        }
        out.flush();
        return ExitCodes.OK;
    }
}
