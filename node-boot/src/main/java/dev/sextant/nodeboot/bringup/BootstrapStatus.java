package dev.sextant.nodeboot.bringup;

import dev.sextant.nodeboot.lifecycle.LifecycleSettings;
import dev.sextant.nodeboot.lifecycle.ProcessExit;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.image.OsRelease;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import jakarta.inject.Singleton;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of bootstrapping as one machine-readable line on standard output (the node's unit sends
 * it to the serial console, where `sextant mini` and the boot tests read it):
 * {@code SEXTANT-STATUS bootstrapped role=<control-plane|worker> disk=<encrypted:UUID|none> kubernetes=<started|not-installed|failed>
 * via=<init|join|rejoin|recovery> since=<ISO-8601 UTC time the state disk was first initialized, read back from that disk>
 * etcd=<member|learner|none> image=<version|unknown>} (etcd: what this node is in the cluster's etcd, a control
 * plane whose member answered, or none; image: the version its os-release names, {@link OsRelease}; each field
 * appended last when it came, so readers of the earlier ones are unchanged)
 * (a fatal error prints {@code SEXTANT-STATUS failed reason=<text>} from the failure handler).
 * After "bootstrapped" the process exits (see {@link LifecycleSettings}).
 */
@Singleton
public final class BootstrapStatus {
    private static final Logger LOG = LoggerFactory.getLogger(BootstrapStatus.class);

    public enum Role {
        CONTROL_PLANE, WORKER;

        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final LifecycleSettings settings;
    private final StateDisk disk;
    private final StateDiskSettings diskSettings;
    private final ProcessExit exit;
    private final OsRelease osRelease;
    private final PrintStream out;
    private final AtomicBoolean reported = new AtomicBoolean();

    public BootstrapStatus(LifecycleSettings settings, StateDisk disk, StateDiskSettings diskSettings, ProcessExit exit,
                           OsRelease osRelease) {
        this(settings, disk, diskSettings, exit, osRelease, System.out);
    }

    BootstrapStatus(LifecycleSettings settings, StateDisk disk, StateDiskSettings diskSettings, ProcessExit exit,
                    OsRelease osRelease, PrintStream out) {
        this.settings = settings;
        this.disk = disk;
        this.diskSettings = diskSettings;
        this.exit = exit;
        this.osRelease = osRelease;
        this.out = out;
    }

    /** The node is a cluster member: say so once, then leave (when configured to). */
    public void bootstrapped(BringUpOutcome.Bootstrapped outcome) throws InterruptedException {
        if (!reported.compareAndSet(false, true)) {
            return;
        }
        out.println("SEXTANT-STATUS bootstrapped role=" + outcome.role().label() + " disk=" + diskState()
                + " kubernetes=" + kubernetesState(outcome.kubernetes()) + " via=" + outcome.via().label()
                + " since=" + outcome.since() + " etcd=" + outcome.etcd().label()
                + " image=" + osRelease.imageVersion().orElse("unknown"));
        out.flush();
        if (settings.exitAfterBootstrap()) {
            LOG.info("Bootstrapped; exiting in {} ms (systemd restarts the bootstrapper in verify-only mode)",
                    settings.exitDelay().toMillis());
            exit.exitAfter(settings.exitDelay());
        }
    }

    private String diskState() throws InterruptedException {
        if (!Files.exists(diskSettings.device())) {
            return "none";
        }
        try {
            return disk.isInitialized() ? "encrypted:" + disk.uuid() : "not-initialized";
        } catch (DiskCryptException e) {
            return "unreadable";
        }
    }

    static String kubernetesState(DriverResult result) {
        if (result instanceof DriverResult.Started) {
            return "started";
        }
        return result instanceof DriverResult.NotInstalled ? "not-installed" : "failed";
    }
}
