package dev.sextant.joinapi.measurements;

import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** Owns the measurements watcher thread so it stops with the application context. */
@Singleton
class MeasurementsWatcherHolder {
    private final Duration period;
    private MeasurementsWatcher watcher;

    MeasurementsWatcherHolder(@Value("${sextant.join.measurements.poll-interval:30s}") Duration period) {
        this.period = period;
    }

    synchronized void start(ReloadingVerifier verifier, Path directory) throws IOException {
        watcher = new MeasurementsWatcher(verifier, directory, period);
    }

    @PreDestroy
    synchronized void close() throws IOException {
        if (watcher != null) {
            watcher.close();
        }
    }
}
