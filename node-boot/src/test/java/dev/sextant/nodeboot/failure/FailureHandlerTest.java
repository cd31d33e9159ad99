package dev.sextant.nodeboot.failure;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FailureHandlerTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("a fatal error marks the disk for reset, writes the reason to the console and reboots after the delay")
    void marksLogsAndReboots() throws Exception {
        Path console = Files.createFile(dir.resolve("console"));
        AtomicInteger resets = new AtomicInteger();
        CountDownLatch rebooted = new CountDownLatch(1);
        long start = System.nanoTime();
        var handler = new FailureHandler(new FailureSettings("200ms", console), resets::incrementAndGet, rebooted::countDown);

        handler.fatal("k3s exited with 1");
        handler.fatal("a consequence of the first");

        assertTrue(rebooted.await(5, TimeUnit.SECONDS), "rebooted");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(200), "not before the delay");
        assertEquals(1, resets.get(), "the disk is marked once, for the first error");
        String written = Files.readString(console);
        assertTrue(written.contains("non-recoverable error after the node lock: k3s exited with 1; rebooting in 0 s"), written);
    }

    @Test
    @DisplayName("with reboots disabled it only marks and logs; a failing disk reset is reported, not thrown")
    void disabledOnlyLogs() throws Exception {
        Path console = Files.createFile(dir.resolve("console"));
        AtomicInteger reboots = new AtomicInteger();
        var handler = new FailureHandler(new FailureSettings("disabled", console), () -> {
            throw new IllegalStateException("no state disk");
        }, reboots::incrementAndGet);
        handler.fatal("init: preparing the state disk failed");
        Thread.sleep(100);
        assertEquals(0, reboots.get());
        assertTrue(handler.failed());
        String written = Files.readString(console);
        assertTrue(written.contains("reboot disabled"), written);
        assertTrue(written.contains("state disk not reset: no state disk"), written);
    }
}
