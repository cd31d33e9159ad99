package dev.sextant.localcluster.qemu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A software TPM 2.0 for one QEMU node: {@code swtpm socket --tpm2 --tpmstate dir=ABS --ctrl
 * type=unixio,path=SOCK}. The state directory may be empty (a factory-fresh TPM) or one made
 * beforehand, for example by swtpm_setup with an EK certificate and an AK certificate in NV, so
 * a node's TPM can be provisioned before it boots. Runs as a child process (not --daemon): with
 * {@link Lifetime#TIED_TO_JVM} closing or a JVM shutdown hook takes it down; a
 * {@link Lifetime#DETACHED} one outlives the JVM and is stopped by pid ({@link ProcessRef}).
 */
public final class SwtpmProcess implements AutoCloseable {
    /** sockaddr_un.sun_path is 108 bytes including the terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;
    private static final Duration STARTUP = Duration.ofSeconds(10);

    private final Process process;
    private final Path stateDir;
    private final Path controlSocket;
    private final Path logFile;
    private final Optional<Thread> shutdownHook;

    private SwtpmProcess(Process process, Path stateDir, Path controlSocket, Path logFile, Lifetime lifetime) {
        this.process = process;
        this.stateDir = stateDir;
        this.controlSocket = controlSocket;
        this.logFile = logFile;
        this.shutdownHook = lifetime == Lifetime.TIED_TO_JVM
                ? Optional.of(new Thread(() -> ProcessStopper.stop(process, 2000), "swtpm-shutdown"))
                : Optional.empty();
        shutdownHook.ifPresent(Runtime.getRuntime()::addShutdownHook);
    }

    /**
     * Starts swtpm on {@code stateDir} (created if absent) with its control socket and log in
     * {@code runDir}, and waits until the socket exists.
     */
    public static SwtpmProcess start(Path swtpm, Path stateDir, Path runDir) throws IOException {
        return start(swtpm, stateDir, runDir, Lifetime.TIED_TO_JVM);
    }

    /** As {@link #start(Path, Path, Path)}, ending with the JVM or outliving it as {@code lifetime} says. */
    public static SwtpmProcess start(Path swtpm, Path stateDir, Path runDir, Lifetime lifetime) throws IOException {
        // swtpm rejects a relative state dir with "CMD_INIT: 0x9" only once QEMU connects (platform.md).
        Path state = Files.createDirectories(stateDir).toAbsolutePath().normalize();
        Path run = Files.createDirectories(runDir).toAbsolutePath().normalize();
        Path socket = run.resolve("swtpm.sock");
        if (socket.toString().length() > MAX_SOCKET_PATH) {
            throw new IOException("swtpm control socket path is too long for a unix socket: " + socket);
        }
        Files.deleteIfExists(socket);
        Path log = run.resolve("swtpm.log");
        List<String> command = List.of(swtpm.toString(), "socket", "--tpm2",
                "--tpmstate", "dir=" + state + ",mode=0600",
                "--ctrl", "type=unixio,path=" + socket,
                "--log", "file=" + log + ",level=1");
        Process process = ChildProcesses.start(command, lifetime, run.resolve("swtpm.out"), true);
        SwtpmProcess swtpmProcess = new SwtpmProcess(process, state, socket, log, lifetime);
        swtpmProcess.awaitSocket();
        return swtpmProcess;
    }

    private void awaitSocket() throws IOException {
        Instant deadline = Instant.now().plus(STARTUP);
        while (!Files.exists(controlSocket)) {
            if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                close();
                throw new IOException("swtpm did not create " + controlSocket + " within " + STARTUP
                        + (process.isAlive() ? "" : " (exit code " + process.exitValue() + ")")
                        + "; see " + logFile + " and " + logFile.resolveSibling("swtpm.out"));
            }
            sleep(50);
        }
    }

    public Path stateDir() {
        return stateDir;
    }

    public Path controlSocket() {
        return controlSocket;
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The process by pid, for a state file (a detached swtpm is stopped through it later). */
    public ProcessRef ref() {
        return ProcessRef.of(process.toHandle(), "swtpm");
    }

    /** Stops swtpm; the state directory stays (it holds the TPM's persistent state). */
    @Override
    public void close() {
        ProcessStopper.stop(process, 2000);
        try {
            shutdownHook.ifPresent(Runtime.getRuntime()::removeShutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook is running or about to; it stops an already-stopped process harmlessly.
        }
    }

    static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting", e);
        }
    }
}
