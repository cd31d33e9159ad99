package dev.sextant.nodeboot.initserver;

import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The node's log for an operator whose init failed: this boot's systemd journal when journalctl
 * exists, else the bootstrapper's own log file. Only ever sent after the init secret was checked.
 */
@Singleton
public final class JournalSource {
    static final int CHUNK_BYTES = 16 * 1024;
    static final long MAX_BYTES = 8L * 1024 * 1024;

    private final InitSettings settings;

    public JournalSource(InitSettings settings) {
        this.settings = settings;
    }

    /** Feeds the log to {@code sink} in chunks of at most 16 KiB, at most 8 MiB in all. */
    public void stream(Consumer<byte[]> sink) throws IOException, InterruptedException {
        if (settings.useJournalctl() && onPath("journalctl")) {
            Process journalctl = new ProcessBuilder("journalctl", "--boot", "--no-pager", "-o", "short-iso")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            try (InputStream in = journalctl.getInputStream()) {
                chunks(in, sink);
            } finally {
                journalctl.destroy();
                journalctl.waitFor();
            }
        } else if (Files.isRegularFile(settings.logFile())) {
            try (InputStream in = Files.newInputStream(settings.logFile())) {
                chunks(in, sink);
            }
        } else {
            sink.accept(("(no journalctl and no log file at " + settings.logFile() + ")\n").getBytes());
        }
    }

    private static void chunks(InputStream in, Consumer<byte[]> sink) throws IOException {
        byte[] buffer = new byte[CHUNK_BYTES];
        long total = 0;
        int n;
        while (total < MAX_BYTES && (n = in.readNBytes(buffer, 0, buffer.length)) > 0) {
            sink.accept(Arrays.copyOf(buffer, n));
            total += n;
        }
    }

    private static boolean onPath(String tool) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
    }
}
