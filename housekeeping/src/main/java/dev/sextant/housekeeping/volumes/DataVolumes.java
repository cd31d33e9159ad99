package dev.sextant.housekeeping.volumes;

import dev.sextant.diskcrypt.CommandRunner;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.Optional;

/**
 * The data volume step of a control-plane node's bootstrap, when {@code sextant.data-volume.enabled}:
 * after the state disk (the datastore directory lies below its mount) and before Kubernetes starts.
 */
@Singleton
public final class DataVolumes {
    private final DataVolumeSettings settings;
    private final CommandRunner runner;

    public DataVolumes(DataVolumeSettings settings, CommandRunner runner) {
        this.settings = settings;
        this.runner = runner;
    }

    /** Mounts this node's volume (waiting for one as long as it takes); empty when switched off. */
    public Optional<String> mount(DataVolumeMounter.VolumeKeys keys) throws InterruptedException {
        if (!settings.enabled()) {
            return Optional.empty();
        }
        var mounted = new DataVolumeMounter(settings, DataVolumeMounter.qemuSources(settings), runner, keys,
                duration -> Thread.sleep(duration.toMillis()), Clock.systemUTC()).runUntilMounted();
        return Optional.of("data volume " + mounted.volume().device() + " (" + mounted.volume().tags() + ") mounted at "
                + mounted.mountPoint());
    }
}
