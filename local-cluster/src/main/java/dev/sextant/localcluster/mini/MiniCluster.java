package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.operator.OperatorInit;
import dev.sextant.localcluster.mini.report.NodeReport;
import dev.sextant.localcluster.qemu.Accel;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code sextant mini}: a local confidential cluster of QEMU nodes on this machine, in the
 * directory {@code layout} names. Every command goes through here: {@code up} makes a new cluster,
 * {@code status} looks at it, {@code reboot} power-cycles one node (or powers on a stopped one),
 * {@code stop} powers one node off and leaves it off, {@code down} stops the cluster and
 * {@code start} boots it again. The operator's own {@code sextant init} and {@code sextant recover}
 * are passed in, so mini initializes and recovers a node exactly as an operator does.
 */
public final class MiniCluster {
    /** Under TCG one node takes minutes from QEMU to a verified handshake on a busy machine, and several share its cores. */
    public static final Duration DEFAULT_BOOT_TIMEOUT = Duration.ofMinutes(15);
    public static final Duration DEFAULT_JOIN_TIMEOUT = Duration.ofMinutes(15);

    private final MiniLayout layout;
    private final Consumer<String> progress;

    public MiniCluster(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    /** How {@code up} runs. {@code repo} empty: boot {@code imageDir} as it is, without building. */
    public record UpOptions(int controlPlanes, int workers, Path imageDir, Optional<Path> repo, Accel accel,
                            boolean keepOnFailure, Duration bootTimeout, Duration joinTimeout) {
        public static final int MAX_CONTROL_PLANES = 7;

        public UpOptions {
            controlPlanesProblem(controlPlanes).ifPresent(problem -> {
                throw new IllegalArgumentException(problem);
            });
            if (workers < 0 || workers > 16) {
                throw new IllegalArgumentException("--workers must be between 0 and 16, got " + workers);
            }
        }

        /**
         * Why {@code controlPlanes} cannot be: etcd needs a majority of its members, so an even count
         * survives no more failures than the odd count below it and only makes a quorum larger.
         */
        public static Optional<String> controlPlanesProblem(int controlPlanes) {
            if (controlPlanes < 1 || controlPlanes > MAX_CONTROL_PLANES || controlPlanes % 2 == 0) {
                return Optional.of("--control-planes must be odd, between 1 and " + MAX_CONTROL_PLANES + " (etcd's"
                        + " quorum is a majority: an even count survives no more failures than one fewer), got "
                        + controlPlanes);
            }
            return Optional.empty();
        }
    }

    /** Returns 0 with the summary printed to {@code summaryOut}, 1 when a cluster is already running here. */
    public int up(UpOptions options, OperatorInit init, Consumer<String> summaryOut) throws Exception {
        return new MiniUp(layout, progress).up(options, init, summaryOut);
    }

    /** Reads mini.json and looks at every node; empty when there is no cluster here. */
    public Optional<List<NodeReport>> status() throws Exception {
        return new MiniStatus(layout).status();
    }

    public Optional<MiniState> state() throws IOException {
        return MiniState.read(layout.stateFile());
    }

    /** Returns once {@code node} is back and verified; the time it took goes to {@code figures}. */
    public void reboot(String node, Duration timeout, OperatorCommand recover, Consumer<String> figures) throws Exception {
        new MiniReboot(layout, progress).reboot(node, timeout, recover, figures);
    }

    /** Powers {@code node} off and leaves it off; the rest of the cluster runs on. */
    public void stop(String node) throws Exception {
        new MiniStop(layout, progress).stop(node);
    }

    /** Stops every process mini.json names; files stay unless {@code purge}. 0 when nothing runs any more. */
    public int down(boolean purge) throws IOException {
        return new MiniDown(layout, progress).down(purge);
    }

    /** Returns once every node is back and verified, the summary printed to {@code summaryOut}. */
    public void start(Duration bootTimeout, Duration joinTimeout, OperatorCommand recover, Consumer<String> summaryOut)
            throws Exception {
        new MiniStart(layout, progress).start(bootTimeout, joinTimeout, recover, summaryOut);
    }
}
