package dev.sextant.e2e.mini;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import java.util.stream.Stream;

/**
 * Samples, once a second, the summed resident memory of the processes a predicate picks (by pid:
 * the CLI, and the QEMU and swtpm processes whose command line names the cluster's directory),
 * and keeps the peak. Reads /proc/PID/status VmRSS; a process that exits between listing and
 * reading is skipped.
 */
final class PeakRss implements AutoCloseable {
    private final AtomicLong peakKiB = new AtomicLong();
    private final Thread sampler;
    private volatile boolean running = true;

    PeakRss(LongPredicate counted) {
        sampler = new Thread(() -> {
            while (running) {
                peakKiB.accumulateAndGet(sample(counted), Math::max);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "peak-rss");
        sampler.setDaemon(true);
        sampler.start();
    }

    static long sample(LongPredicate counted) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                    .mapToLong(Long::parseLong).filter(counted).map(PeakRss::rssKiB).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    static String cmdline(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"))).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    private static long rssKiB(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Exited meanwhile.
        }
        return 0;
    }

    long peakMiB() {
        return peakKiB.get() / 1024;
    }

    @Override
    public void close() {
        running = false;
        sampler.interrupt();
    }
}
