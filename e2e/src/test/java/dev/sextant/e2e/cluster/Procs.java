package dev.sextant.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Every process the cluster test starts, each with its output in its own log file, so a failure
 * message can name the file to read and {@link #close()} can kill them all, even after a failure.
 */
final class Procs implements AutoCloseable {
    /** A finished command: its exit code and its combined output. */
    record Result(int exit, String output, Path log) {
    }

    private final Path dir;
    private final List<Process> started = new ArrayList<>();

    Procs(Path dir) {
        this.dir = dir;
    }

    Path log(String name) {
        return dir.resolve(name + ".log");
    }

    /** Starts a long-running process; its stdout and stderr go to {@code <name>.log}. */
    synchronized Process start(String name, List<String> command, Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log(name).toFile());
        builder.environment().putAll(env);
        try {
            Process process = builder.start();
            started.add(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + " (" + command.get(0) + ")", e);
        }
    }

    /** Runs a command to its end within {@code timeout}; killed and reported when it takes longer. */
    Result run(String name, Duration timeout, List<String> command) throws InterruptedException {
        Process process = start(name, command, Map.of());
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(name + " did not finish within " + timeout.toSeconds() + " s; see " + log(name));
        }
        try {
            return new Result(process.exitValue(), Files.readString(log(name)), log(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Like {@link #run} but the command must exit 0. */
    String ok(String name, Duration timeout, List<String> command) throws InterruptedException {
        Result r = run(name, timeout, command);
        if (r.exit() != 0) {
            throw new AssertionError(name + " exited with " + r.exit() + "; see " + r.log() + ":\n" + r.output());
        }
        return r.output();
    }

    /** Terminates everything still running: politely first, then forcibly, children included. */
    @Override
    public synchronized void close() throws InterruptedException {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
        for (Process p : started) {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        started.clear();
    }
}
