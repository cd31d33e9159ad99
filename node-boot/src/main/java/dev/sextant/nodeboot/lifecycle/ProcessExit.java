package dev.sextant.nodeboot.lifecycle;

import jakarta.inject.Singleton;
import java.time.Duration;

/** Ends the bootstrapper process; its own bean so tests can see the exit without dying. */
@Singleton
public class ProcessExit {
    /** Exits with status 0 after {@code delay}, from a separate thread (the caller may be a gRPC call). */
    public void exitAfter(Duration delay) {
        Thread thread = new Thread(() -> {
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // Shutdown hooks stop the application context (gRPC server, TPM connection) first.
            System.exit(0);
        }, "bootstrap-exit");
        thread.setDaemon(true);
        thread.start();
    }
}
