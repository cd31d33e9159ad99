package dev.sextant.nodeboot.failure;

import dev.sextant.diskcrypt.DiskReset;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A fatal error after the node lock: the node can no longer attest as fresh (PCR 15 is marked),
 * so the only way forward is a clean start. Mark the disk for reset (never earlier: a rebooting,
 * already-joined node with a transient error must keep its data), say why on the console, reboot.
 */
@Singleton
public final class FailureHandler {
    private static final Logger LOG = LoggerFactory.getLogger(FailureHandler.class);

    private final FailureSettings settings;
    private final DiskReset disk;
    private final Rebooter rebooter;
    private final AtomicBoolean handled = new AtomicBoolean();

    public FailureHandler(FailureSettings settings, DiskReset disk, Rebooter rebooter) {
        this.settings = settings;
        this.disk = disk;
        this.rebooter = rebooter;
    }

    /** Handles the first fatal error only; later ones are logged (they are usually its consequences). */
    public void fatal(String reason) {
        if (!handled.compareAndSet(false, true)) {
            LOG.error("Further fatal error while already failing: {}", reason);
            return;
        }
        Optional<Duration> delay = settings.delay();
        // The machine-readable form for `sextant mini` and the boot tests (see BootstrapStatus).
        System.out.println("SEXTANT-STATUS failed reason=" + reason.replaceAll("\\s+", " "));
        console("sextant bootstrapper: non-recoverable error after the node lock: " + reason
                + delay.map(d -> "; rebooting in " + d.toSeconds() + " s").orElse("; reboot disabled"));
        try {
            disk.markForReset();
        } catch (Exception e) {
            console("sextant bootstrapper: state disk not reset: " + e.getMessage());
        }
        delay.ifPresent(this::rebootAfter);
    }

    public boolean failed() {
        return handled.get();
    }

    private void rebootAfter(Duration delay) {
        Thread thread = new Thread(() -> {
            try {
                Thread.sleep(delay.toMillis());
                rebooter.reboot();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                console("sextant bootstrapper: reboot failed: " + e.getMessage());
            }
        }, "failure-reboot");
        thread.start();
    }

    private void console(String line) {
        LOG.error(line);
        System.err.println(line);
        if (Files.isWritable(settings.console())) {
            try {
                Files.writeString(settings.console(), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            } catch (IOException ignored) {
                // stderr and the log already have it.
            }
        }
    }
}
