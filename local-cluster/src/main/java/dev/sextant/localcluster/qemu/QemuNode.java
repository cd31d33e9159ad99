package dev.sextant.localcluster.qemu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * One Sextant node under QEMU/TCG with OVMF and a swtpm TPM 2.0. Files live in the node's work
 * directory: {@code console.log} (serial console of this boot; earlier boots' are kept by
 * {@link ConsoleHistory}), {@code qemu.log} (QEMU's own output, appended per boot),
 * {@code OVMF_VARS.fd} (a fresh copy per boot, so no boot entry of a previous run leaks into
 * PCR 4), and {@code swtpm/}. Closing stops QEMU, then swtpm; so does a JVM shutdown hook, unless
 * the node was booted {@link Lifetime#DETACHED} (then only closing, or {@link ProcessRef#stop}, does).
 */
public final class QemuNode implements AutoCloseable {
    private final Process qemu;
    private final SwtpmProcess swtpm;
    private final ConsoleLog console;
    private final Map<Integer, Integer> guestToHostPorts;
    private final Path workDir;
    private final Instant started;
    private final Optional<Thread> shutdownHook;

    private QemuNode(Process qemu, SwtpmProcess swtpm, ConsoleLog console,
                     Map<Integer, Integer> guestToHostPorts, Path workDir, Lifetime lifetime) {
        this.qemu = qemu;
        this.swtpm = swtpm;
        this.console = console;
        this.guestToHostPorts = Map.copyOf(guestToHostPorts);
        this.workDir = workDir;
        this.started = Instant.now();
        this.shutdownHook = lifetime == Lifetime.TIED_TO_JVM
                ? Optional.of(new Thread(this::stopProcesses, "qemu-node-shutdown"))
                : Optional.empty();
        shutdownHook.ifPresent(Runtime.getRuntime()::addShutdownHook);
    }

    /** Boots {@code config.image()}; returns once QEMU runs (not once the guest is up). */
    public static QemuNode boot(NodeConfig config) throws IOException {
        Path work = Files.createDirectories(config.workDir()).toAbsolutePath().normalize();
        Path vars = work.resolve("OVMF_VARS.fd");
        Files.copy(config.firmwareVariables().orElse(config.tools().ovmfVars()), vars, StandardCopyOption.REPLACE_EXISTING);
        Path consoleFile = work.resolve("console.log");
        ConsoleHistory.keepPrevious(consoleFile);
        Path tpmState = config.tpmState().orElse(work.resolve("swtpm/state"));
        SwtpmProcess swtpm = SwtpmProcess.start(config.tools().swtpm(), tpmState, work.resolve("swtpm"),
                config.lifetime());
        Map<Integer, Integer> guestToHost = new LinkedHashMap<>();
        Map<Integer, Integer> hostToGuest = new LinkedHashMap<>();
        for (int guestPort : config.guestPorts()) {
            int hostPort = config.hostPorts().getOrDefault(guestPort, 0);
            hostPort = hostPort != 0 ? hostPort : FreePort.pick();
            guestToHost.put(guestPort, hostPort);
            hostToGuest.put(hostPort, guestPort);
        }
        QemuCommand command = new QemuCommand(config.tools(), config.image().toAbsolutePath(), vars,
                swtpm.controlSocket(), consoleFile, hostToGuest, config.memoryMiB(), config.cpus(), config.accel(),
                config.settings(), config.rawOemStrings(), config.stateDisk().map(d -> d.toAbsolutePath().normalize()),
                config.dataVolumes().stream().map(d -> d.toAbsolutePath().normalize()).toList());
        try {
            Process qemu = ChildProcesses.start(command.arguments(), config.lifetime(), work.resolve("qemu.log"), true);
            return new QemuNode(qemu, swtpm, new ConsoleLog(consoleFile), guestToHost, work, config.lifetime());
        } catch (IOException | RuntimeException e) {
            swtpm.close();
            throw e;
        }
    }

    /**
     * Waits for a console line matching {@code pattern}. Fails early, naming the pattern and the
     * console log, if QEMU or swtpm exits first.
     */
    public MatchResult awaitConsole(Pattern pattern, Duration timeout) throws IOException, TimeoutException {
        return console.await(pattern, timeout, this::whyStopped);
    }

    private Optional<String> whyStopped() {
        if (!qemu.isAlive()) {
            return Optional.of("QEMU exited with code " + qemu.exitValue() + " (see " + workDir.resolve("qemu.log") + ")");
        }
        if (!swtpm.isAlive()) {
            return Optional.of("swtpm exited (see " + swtpm.logFile() + ")");
        }
        return Optional.empty();
    }

    /** The 127.0.0.1 port that QEMU forwards to {@code guestPort} in the guest. */
    public int hostPort(int guestPort) {
        Integer port = guestToHostPorts.get(guestPort);
        if (port == null) {
            throw new IllegalArgumentException("guest port " + guestPort + " was not forwarded; forwarded: "
                    + guestToHostPorts.keySet());
        }
        return port;
    }

    public ConsoleLog console() {
        return console;
    }

    public Path consoleLog() {
        return console.file();
    }

    public Path workDir() {
        return workDir;
    }

    public SwtpmProcess swtpm() {
        return swtpm;
    }

    /** Time since QEMU was started. */
    public Duration uptime() {
        return Duration.between(started, Instant.now());
    }

    public boolean isRunning() {
        return qemu.isAlive();
    }

    /** QEMU by pid, for a state file (a detached node is stopped through it later). */
    public ProcessRef qemuRef() {
        return ProcessRef.of(qemu.toHandle(), "qemu-system-x86_64");
    }

    /** Guest port to 127.0.0.1 port, as forwarded. */
    public Map<Integer, Integer> hostPorts() {
        return guestToHostPorts;
    }

    /** Why the node cannot answer any more (QEMU or swtpm exited), naming the log to read; empty while it runs. */
    public Optional<String> whyNotRunning() {
        return whyStopped();
    }

    @Override
    public void close() {
        stopProcesses();
        try {
            shutdownHook.ifPresent(Runtime.getRuntime()::removeShutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook runs stopProcesses itself; stopping twice is harmless.
        }
    }

    private void stopProcesses() {
        // QEMU first: it holds swtpm's control channel, and SIGTERM lets it exit cleanly.
        ProcessStopper.stop(qemu, 5000);
        swtpm.close();
    }
}
