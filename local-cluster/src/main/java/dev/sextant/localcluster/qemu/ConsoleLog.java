package dev.sextant.localcluster.qemu;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A serial console that QEMU writes to a file, read incrementally as complete lines. Lines are
 * split on the byte '\n' before UTF-8 decoding, so a chunk boundary never splits a character.
 */
public final class ConsoleLog {
    private static final long POLL_MILLIS = 200;

    private final Path file;
    private final List<String> lines = new ArrayList<>();
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private long offset;

    public ConsoleLog(Path file) {
        this.file = file;
    }

    public Path file() {
        return file;
    }

    /** Every complete line written so far, without line terminators. */
    public synchronized List<String> lines() throws IOException {
        refresh();
        return List.copyOf(lines);
    }

    /**
     * Waits until a complete console line contains a match of {@code pattern}, and returns the
     * match of the first such line.
     *
     * @param stillRunning empty while the producer runs; otherwise why it stopped, which ends the
     *                     wait early (a dead VM prints nothing more)
     * @throws TimeoutException naming the pattern, the last line seen and the log file
     */
    public MatchResult await(Pattern pattern, Duration timeout, Supplier<Optional<String>> stillRunning)
            throws IOException, TimeoutException {
        Instant deadline = Instant.now().plus(timeout);
        int scanned = 0;
        while (true) {
            List<String> seen = lines();
            for (; scanned < seen.size(); scanned++) {
                Matcher matcher = pattern.matcher(seen.get(scanned));
                if (matcher.find()) {
                    return matcher.toMatchResult();
                }
            }
            Optional<String> stopped = stillRunning.get();
            if (stopped.isPresent() || Instant.now().isAfter(deadline)) {
                String why = stopped.map(s -> "gave up: " + s).orElse("timed out after " + timeout);
                throw new TimeoutException(why + " waiting for the console to show /" + pattern
                        + "/; last line: \"" + (seen.isEmpty() ? "" : seen.get(seen.size() - 1))
                        + "\"; console log: " + file);
            }
            SwtpmProcess.sleep(POLL_MILLIS);
        }
    }

    private void refresh() throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            if (length <= offset) {
                return;
            }
            in.seek(offset);
            byte[] chunk = new byte[(int) Math.min(length - offset, 1 << 20)];
            in.readFully(chunk);
            offset += chunk.length;
            split(chunk);
        }
    }

    private void split(byte[] chunk) {
        for (byte b : chunk) {
            if (b == '\n') {
                String line = partial.toString(StandardCharsets.UTF_8);
                lines.add(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
                partial.reset();
            } else {
                partial.write(b);
            }
        }
    }
}
