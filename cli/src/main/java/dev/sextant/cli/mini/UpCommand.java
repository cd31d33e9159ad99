package dev.sextant.cli.mini;

import dev.sextant.localcluster.mini.MiniCluster;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.mini.report.Progress;
import dev.sextant.localcluster.qemu.Accel;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "up",
        description = "Build (or reuse) the node image, boot a control plane under QEMU with a swtpm TPM whose EK "
                + "certificate a local CA signs, verify it over attested TLS, boot N workers "
                + "the same way while it runs init and the other control planes after it, wait for them to join (each control plane's etcd member "
                + "voting) and print a summary. The nodes keep running after the command; 'sextant mini down' stops them.",
        footer = {"  sextant mini up --workers 1", "  sextant mini up --control-planes 3 --workers 1"},
        exitCodeList = {" 0:the cluster is up; the summary is printed", " 1:a mini cluster already runs in --dir",
                " 2:usage error, or the cluster could not come up (the message names the node and its console log)"})
public final class UpCommand implements Callable<Integer> {
    static final int FAILED = 2;

    @Spec
    CommandSpec spec;

    @Mixin
    MiniDirOption dir;

    @Option(names = "--control-planes", paramLabel = "N", description = "control planes, each with an etcd member: odd,"
            + " 1 to " + MiniCluster.UpOptions.MAX_CONTROL_PLANES + " (default: ${DEFAULT-VALUE})")
    int controlPlanes = 1;

    @Option(names = "--workers", paramLabel = "N", description = "worker nodes besides the control plane (default: ${DEFAULT-VALUE})")
    int workers = 1;

    @Option(names = "--image", paramLabel = "DIR", description = "image directory, as 'sextant image build --out' writes it (default: ${DEFAULT-VALUE})")
    Path image = Path.of("out/image");

    @Option(names = "--no-build", description = "boot --image as it is; do not run the image builder")
    boolean noBuild;

    @Option(names = "--repo", paramLabel = "DIR", description = "source tree holding mkosi/ (default: the nearest one above the working directory)")
    Path repo;

    @Option(names = "--accel", paramLabel = "tcg|kvm", description = "QEMU accelerator (default: ${DEFAULT-VALUE}; KVM hangs at 'Probing EDD' on some hosts)")
    String accel = "tcg";

    @Option(names = "--boot-timeout", paramLabel = "MIN", description = "minutes to wait for a node to boot and bootstrap (default: ${DEFAULT-VALUE})")
    long bootTimeoutMinutes = MiniCluster.DEFAULT_BOOT_TIMEOUT.toMinutes();

    @Option(names = "--join-timeout", paramLabel = "MIN", description = "minutes to wait for a node to join after init, and for the control planes' etcd members to vote (default: ${DEFAULT-VALUE})")
    long joinTimeoutMinutes = MiniCluster.DEFAULT_JOIN_TIMEOUT.toMinutes();

    @Option(names = "--keep-on-failure", description = "leave the nodes running when up fails (to look at them; then 'sextant mini down')")
    boolean keepOnFailure;

    @Override
    public Integer call() throws Exception {
        MiniCluster.UpOptions.controlPlanesProblem(controlPlanes).ifPresent(problem -> {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
        });
        PrintWriter out = spec.commandLine().getOut();
        Instant start = Instant.now();
        Progress progress = new Progress(out, start);
        MiniCluster.UpOptions options = new MiniCluster.UpOptions(controlPlanes, workers, image, noBuild ? Optional.empty() : Optional.of(repoRoot()),
                parseAccel(), keepOnFailure, Duration.ofMinutes(bootTimeoutMinutes), Duration.ofMinutes(joinTimeoutMinutes));
        int exit;
        try {
            exit = new MiniCluster(dir.layout(), progress).up(options, InProcessCommand.INIT, line -> {
                out.println(line);
                out.flush();
            });
        } catch (MiniFailure e) {
            out.flush();
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
            return FAILED;
        }
        if (exit == 0) {
            out.printf("mini up: %.1f s from start to summary%n", progress.elapsed().toMillis() / 1000.0);
            out.flush();
        }
        return exit;
    }

    private Accel parseAccel() {
        try {
            return Accel.valueOf(accel.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--accel must be tcg or kvm, not " + accel);
        }
    }

    private Path repoRoot() {
        if (repo != null) {
            if (!Files.isRegularFile(repo.resolve("mkosi/mkosi.conf"))) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--repo " + repo + " has no mkosi/mkosi.conf");
            }
            return repo.toAbsolutePath().normalize();
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("mkosi/mkosi.conf"))) {
                return d;
            }
        }
        throw new CommandLine.ParameterException(spec.commandLine(), "no mkosi/mkosi.conf in the working directory or above;"
                + " pass --repo DIR to build the image, or --no-build --image DIR to boot a built one");
    }
}
