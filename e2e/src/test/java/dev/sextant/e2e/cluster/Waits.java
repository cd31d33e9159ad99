package dev.sextant.e2e.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/** Bounded waits: each names what it waited for and the log to read when it times out. */
final class Waits {
    private static final int TAIL_LINES = 30;

    private Waits() {
    }

    static void until(Duration timeout, String what, Path log, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + "; see " + log + tail(log));
            }
            Thread.sleep(100);
        }
    }

    /** Waits until a line of {@code log} matches {@code regex}, and returns the matching lines. */
    static List<String> logMatches(Duration timeout, String what, Path log, String regex) throws InterruptedException {
        Pattern pattern = Pattern.compile(regex);
        until(timeout, what, log, () -> !lines(log, pattern).isEmpty());
        return lines(log, pattern);
    }

    /**
     * The log's last lines, for the failure message: CI keeps the message, not the files it names
     * (a bootstrapper that could not start says why in its last lines).
     */
    private static String tail(Path log) {
        List<String> all = lines(log, Pattern.compile(""));
        return all.isEmpty() ? " (empty or missing)"
                : ", which ends:\n" + String.join("\n", all.subList(Math.max(0, all.size() - TAIL_LINES), all.size()));
    }

    static List<String> lines(Path log, Pattern pattern) {
        try {
            return Files.exists(log) ? Files.readAllLines(log).stream().filter(l -> pattern.matcher(l).find()).toList()
                    : List.of();
        } catch (IOException e) {
            // A log being written may end in half a UTF-8 sequence: read it again on the next poll.
            return List.of();
        }
    }

    static void port(Duration timeout, String what, Path log, int port) throws InterruptedException {
        until(timeout, what + " listening on 127.0.0.1:" + port, log, () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }
}
