package dev.sextant.localcluster.mini.boot;

import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.qemu.ProcessRef;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Stops a node's processes by the pid mini.json recorded (another command started them): QEMU
 * first, then its swtpm, each given a grace period before SIGKILL.
 */
public final class PowerOff {
    private static final Duration QEMU_GRACE = Duration.ofSeconds(10);
    private static final Duration SWTPM_GRACE = Duration.ofSeconds(5);

    private final Consumer<String> progress;

    public PowerOff(Consumer<String> progress) {
        this.progress = progress;
    }

    /** True when the node's QEMU is gone (or was). */
    public boolean qemu(MiniState.Node node) {
        return stop(node.name(), "QEMU", node.qemu(), QEMU_GRACE);
    }

    /** True when the node's swtpm is gone (or was). */
    public boolean swtpm(MiniState.Node node) {
        return stop(node.name(), "swtpm", node.swtpm(), SWTPM_GRACE);
    }

    private boolean stop(String node, String what, ProcessRef process, Duration grace) {
        if (process == null || !process.alive()) {
            return true;
        }
        boolean stopped = process.stop(grace);
        progress.accept(node + ": " + (stopped ? "stopped " : "could not stop ") + what + " (pid " + process.pid() + ")");
        return stopped;
    }
}
