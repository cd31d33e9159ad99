package dev.sextant.e2e.cluster;

import dev.sextant.localcluster.qemu.FreePort;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/** Bounded waits: each names what it waited for and the log to read when it times out. */
final class Waits {
    private Waits() {
    }

    static void until(Duration timeout, String what, Path log, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + "; see " + log);
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

    /** A free port P whose successor is free too: the swtpm TCTI of tpm2-tools expects the control port at P+1. */
    static int freePortPair() {
        for (int tries = 0; tries < 50; tries++) {
            int port = FreePort.pick();
            try (ServerSocket next = new ServerSocket(port + 1, 0, java.net.InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // Try another pair.
            }
        }
        throw new IllegalStateException("no two consecutive free loopback ports in 50 tries");
    }
}
