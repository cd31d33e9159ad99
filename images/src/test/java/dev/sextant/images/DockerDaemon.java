package dev.sextant.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The Docker daemon the test talks to: the one already answering, or a {@code dockerd} this test starts
 * (as root) and stops again at the end. A daemon somebody else started is never stopped.
 */
final class DockerDaemon implements AutoCloseable {
    private static final Duration QUICK = Duration.ofSeconds(15);
    private final Process startedHere;

    private DockerDaemon(Process startedHere) {
        this.startedHere = startedHere;
    }

    /**
     * The server version when a daemon answers the {@code docker} client, else empty. A client that
     * cannot run or hangs is broken, not absent (the test checked it is installed): that throws.
     */
    static Optional<String> serverVersion() {
        try {
            Command.Result r = Command.run(QUICK, java.util.List.of("docker", "version", "--format", "{{.Server.Version}}"));
            return r.ok() ? Optional.of(r.output().lines().reduce((a, b) -> b).orElse("")) : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("the docker client failed to run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Uses the running daemon, or starts {@code dockerd} logging to {@code log} and waits for it. */
    static DockerDaemon ensure(Path log) throws IOException, InterruptedException {
        if (serverVersion().isPresent()) {
            return new DockerDaemon(null);
        }
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder("dockerd").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IOException("dockerd exited " + p.exitValue() + ": " + Files.readString(log));
            }
            if (serverVersion().isPresent()) {
                System.out.println("images: started dockerd " + serverVersion().orElseThrow() + " (stopped at the end)");
                return new DockerDaemon(p);
            }
            Thread.sleep(250);
        }
        p.destroy();
        throw new IOException("dockerd did not answer within 60 s: " + Files.readString(log));
    }

    @Override
    public void close() throws InterruptedException {
        if (startedHere == null) {
            return;
        }
        startedHere.destroy(); // SIGTERM: dockerd stops its containers and its managed containerd.
        if (!startedHere.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            startedHere.destroyForcibly();
        }
    }
}
