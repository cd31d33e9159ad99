package dev.sextant.cli.mini;

import dev.sextant.cli.init.InitCommand;
import dev.sextant.localcluster.mini.MiniCluster;
import dev.sextant.localcluster.mini.Progress;
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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Build (or reuse) the node image, boot a control plane and N workers under QEMU with swtpm TPMs "
                + "whose EK certificates a local CA signs, verify the control plane over attested TLS, run init, "
                + "wait for the workers to join and print a summary. The nodes keep running after the command; "
                + "'sextant mini down' stops them. Exits 0 when the cluster is up, 1 if one already runs here, 2 "
                + "on failure.")
public final class UpCommand implements Callable<Integer> {
    static final int FAILED = 2;

    @Spec
    CommandSpec spec;

    @Mixin
    MiniDirOption dir;

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

    @Option(names = "--join-timeout", paramLabel = "MIN", description = "minutes to wait for a worker to join after init (default: ${DEFAULT-VALUE})")
    long joinTimeoutMinutes = MiniCluster.DEFAULT_JOIN_TIMEOUT.toMinutes();

    @Option(names = "--keep-on-failure", description = "leave the nodes running when up fails (to look at them; then 'sextant mini down')")
    boolean keepOnFailure;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Instant start = Instant.now();
        Progress progress = new Progress(out, start);
        MiniCluster.UpOptions options = new MiniCluster.UpOptions(workers, image, noBuild ? Optional.empty() : Optional.of(repoRoot()),
                parseAccel(), keepOnFailure, Duration.ofMinutes(bootTimeoutMinutes), Duration.ofMinutes(joinTimeoutMinutes));
        int exit;
        try {
            exit = new MiniCluster(dir.layout(), progress).up(options, UpCommand::init, line -> {
                out.println(line);
                out.flush();
            });
        } catch (MiniCluster.MiniFailure e) {
            spec.commandLine().getErr().println("sextant mini up: " + e.getMessage());
            return FAILED;
        }
        if (exit == 0) {
            out.printf("mini up: %.1f s from start to summary%n", progress.elapsed().toMillis() / 1000.0);
            out.flush();
        }
        return exit;
    }

    /** The operator's own `sextant init`, in this process, its output turned into progress lines. */
    static int init(List<String> args, Consumer<String> output) {
        try (LineWriter lines = new LineWriter(output);
             PrintWriter writer = new PrintWriter(lines, true)) {
            CommandLine init = new CommandLine(new InitCommand()).setOut(writer).setErr(writer)
                    .setExecutionExceptionHandler((e, cmd, parsed) -> {
                        writer.println("init failed: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
                        return 2;
                    });
            int exit = init.execute(args.toArray(String[]::new));
            writer.flush();
            return exit;
        }
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
