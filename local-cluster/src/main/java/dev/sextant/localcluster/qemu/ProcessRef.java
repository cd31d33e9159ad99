package dev.sextant.localcluster.qemu;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A process by pid, as a state file keeps it, with its start time and program name so that a pid
 * the kernel has since given to another process is never taken for it (nor signalled).
 */
public record ProcessRef(long pid, long startedEpochMillis, String program) {
    /** Start times come from /proc in clock ticks; two readings of the same process agree within this. */
    private static final long START_TOLERANCE_MILLIS = 2000;

    public static ProcessRef of(ProcessHandle process, String program) {
        return new ProcessRef(process.pid(),
                process.info().startInstant().map(Instant::toEpochMilli).orElse(0L), program);
    }

    /** The running process this refers to; empty if it exited or its pid now belongs to another process. */
    public Optional<ProcessHandle> live() {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(this::isSameProcess);
    }

    public boolean alive() {
        return live().isPresent();
    }

    /**
     * SIGTERM, then SIGKILL after {@code grace}. Returns true when the process is gone (or was
     * already), false if it survived SIGKILL's wait.
     */
    public boolean stop(Duration grace) {
        Optional<ProcessHandle> handle = live();
        if (handle.isEmpty()) {
            return true;
        }
        ProcessHandle process = handle.get();
        process.destroy();
        if (awaitExit(process, grace)) {
            return true;
        }
        process.destroyForcibly();
        return awaitExit(process, Duration.ofSeconds(5));
    }

    private boolean isSameProcess(ProcessHandle process) {
        ProcessHandle.Info info = process.info();
        boolean sameProgram = info.command().map(c -> c.endsWith("/" + program) || c.equals(program)).orElse(false);
        boolean sameStart = startedEpochMillis == 0 || info.startInstant()
                .map(s -> Math.abs(s.toEpochMilli() - startedEpochMillis) <= START_TOLERANCE_MILLIS).orElse(false);
        return sameProgram && sameStart;
    }

    private static boolean awaitExit(ProcessHandle process, Duration timeout) {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return !process.isAlive();
        } catch (java.util.concurrent.ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }
}
