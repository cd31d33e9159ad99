package dev.sextant.joinapi.measurements;

import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Inject;
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

    @Inject
    MeasurementsWatcherHolder(JoinServiceConfig config) {
        this(config.measurements().pollInterval());
    }

    MeasurementsWatcherHolder(Duration period) {
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
