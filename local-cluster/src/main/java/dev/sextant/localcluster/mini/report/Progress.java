package dev.sextant.localcluster.mini.report;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/** Progress lines on the operator's terminal, each with the seconds since the command started. */
public final class Progress implements Consumer<String> {
    private final PrintWriter out;
    private final Instant start;

    public Progress(PrintWriter out, Instant start) {
        this.out = out;
        this.start = start;
    }

    @Override
    public synchronized void accept(String line) {
        out.printf("[%6.1f s] %s%n", elapsed().toMillis() / 1000.0, line);
        out.flush();
    }

    public Duration elapsed() {
        return Duration.between(start, Instant.now());
    }
}
