package dev.sextant.localcluster.qemu;

import java.util.concurrent.TimeUnit;

/** Stops a child process politely (SIGTERM), then forcibly if it does not exit in time. */
final class ProcessStopper {
    private ProcessStopper() {
    }

    /** Returns the exit code, or -1 if the process had to be killed. */
    static int stop(Process process, long graceMillis) {
        if (!process.isAlive()) {
            return process.exitValue();
        }
        process.destroy();
        try {
            if (process.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                return process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return -1;
    }
}
