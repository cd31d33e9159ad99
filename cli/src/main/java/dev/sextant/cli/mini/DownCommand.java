package dev.sextant.cli.mini;

import dev.sextant.localcluster.mini.MiniCluster;
import dev.sextant.localcluster.mini.report.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Instant;
import java.util.concurrent.Callable;

@Command(name = "down", footer = "  sextant mini down",
        exitCodeList = {" 0:nothing of the cluster runs any more", " 1:a process survived SIGKILL (mini.json is kept to retry)",
                " 2:usage error, or a file that cannot be used"},
        description = "Stop every QEMU and swtpm process of the mini cluster. Its files (console logs, TPM states, "
                + "state disks, CA, keys, secrets) stay unless --purge.")
public final class DownCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    MiniDirOption dir;

    @Option(names = "--purge", description = "also remove the cluster's directory, secrets and logs included")
    boolean purge;

    @Override
    public Integer call() throws Exception {
        return new MiniCluster(dir.layout(), new Progress(spec.commandLine().getOut(), Instant.now())).down(purge);
    }
}
