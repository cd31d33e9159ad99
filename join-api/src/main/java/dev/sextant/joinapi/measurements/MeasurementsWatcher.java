package dev.sextant.joinapi.measurements;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers {@link ReloadingVerifier#reload()} when the measurements directory changes. Kubernetes
 * updates a mounted ConfigMap by swapping the {@code ..data} symlink, which shows up as events on
 * the directory, not on the file, so the directory is watched and any event means "re-read". The
 * poll timeout doubles as a periodic check: watch events can be lost (overflow, some network or
 * overlay file systems never deliver them), and a reload of unchanged content costs two hashes.
 */
public final class MeasurementsWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MeasurementsWatcher.class);

    private final ReloadingVerifier verifier;
    private final WatchService watchService;
    private final Duration period;
    private final Thread thread;

    public MeasurementsWatcher(ReloadingVerifier verifier, Path directory, Duration period) throws IOException {
        this.verifier = verifier;
        this.period = period;
        this.watchService = FileSystems.getDefault().newWatchService();
        directory.register(watchService, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        this.thread = new Thread(this::run, "measurements-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                WatchKey key = watchService.poll(period.toMillis(), TimeUnit.MILLISECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
                verifier.reload();
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // Closing: the normal way out.
        } catch (RuntimeException e) {
            LOG.error("measurements watcher stopped; updates will not be picked up until restart", e);
        }
    }

    @Override
    public void close() throws IOException {
        thread.interrupt();
        watchService.close();
    }
}
