package dev.sextant.etcd.process;

import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * etcd run as a child process for one member (tests, benchmarks, the local cluster; nodes run the same
 * {@link EtcdMemberConfig#arguments()} as a systemd unit). Its output goes to a log file of its own.
 */
public final class EtcdProcess implements AutoCloseable {
    public static final Path DEFAULT_BINARY = Path.of("/usr/bin/etcd");
    /** etcd closes its database and leaves raft cleanly within this after SIGTERM; then it is killed. */
    public static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private final EtcdMemberConfig config;
    private final Process process;
    private final Path log;

    private EtcdProcess(EtcdMemberConfig config, Process process, Path log) {
        this.config = config;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code binary} with the member's arguments, its output appended to {@code log}; does not wait. */
    public static EtcdProcess start(Path binary, EtcdMemberConfig config, Path log) throws IOException {
        if (!Files.isExecutable(binary)) {
            throw new IOException("etcd is not installed: " + binary + " is missing or not executable"
                    + " (install Debian's etcd-server package: scripts/setup.sh)");
        }
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(config.arguments());
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new EtcdProcess(config, process, log);
    }

    public EtcdMemberConfig config() {
        return config;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until the member answers a status call on its client port (through an {@link EtcdClient}
     * holding the member's own certificate, which is also a client certificate). A learner answers too.
     *
     * @throws IOException when etcd exits first or does not answer within {@code timeout}, with the end of its log
     */
    public EndpointStatus awaitReady(Duration timeout) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        String endpoint = config.clientEndpoint();
        EtcdClientConfig probe = new EtcdClientConfig(List.of(endpoint), config.clientTls(), Duration.ofSeconds(1));
        EtcdException last = null;
        try (EtcdClient client = new EtcdClient(probe)) {
            while (Instant.now().isBefore(deadline)) {
                if (!process.isAlive()) {
                    throw new IOException("etcd member " + config.name() + " exited with status " + process.exitValue()
                            + " before it answered; its log ends:\n" + logTail(20));
                }
                try {
                    return client.status(endpoint);
                } catch (EtcdException e) {
                    last = e;
                    Thread.sleep(100);
                }
            }
        }
        throw new IOException("etcd member " + config.name() + " did not answer at " + endpoint + " within " + timeout.toMillis()
                + " ms (" + (last == null ? "no attempt" : last.getMessage()) + "); its log ends:\n" + logTail(20));
    }

    /** SIGTERM, then SIGKILL after {@link #STOP_GRACE}; returns once the process is gone. */
    public void stop() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
        }
    }

    /** SIGKILL: a member that crashes or loses power. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** The last {@code lines} lines of etcd's log, for failure messages. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log at " + log + ": " + e.getMessage() + ")";
        }
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    @Override
    public String toString() {
        return "EtcdProcess[" + config.name() + ", pid " + process.pid() + ", " + config.clientUrl() + "]";
    }
}
