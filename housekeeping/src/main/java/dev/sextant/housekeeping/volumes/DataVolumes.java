package dev.sextant.housekeeping.volumes;

import dev.sextant.diskcrypt.CommandRunner;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * The data volume step of a control-plane node's bootstrap, when {@code sextant.data-volume.enabled}:
 * after the state disk (the directory it is mounted on lies below the state disk's mount) and before
 * the services that keep their data there start (a control plane's etcd member).
 */
@Singleton
public final class DataVolumes {
    private final DataVolumeSettings settings;
    private final CommandRunner runner;

    public DataVolumes(DataVolumeSettings settings, CommandRunner runner) {
        this.settings = settings;
        this.runner = runner;
    }

    /** Whether this node looks for a data volume at all ({@code sextant.data-volume.enabled}). */
    public boolean enabled() {
        return settings.enabled();
    }

    /** Mounts this node's volume at {@code mountPoint} (waiting for one as long as it takes); empty when switched off. */
    public Optional<String> mount(DataVolumeMounter.VolumeKeys keys, Path mountPoint) throws InterruptedException {
        if (!settings.enabled()) {
            return Optional.empty();
        }
        DataVolumeSettings here = settings.withMountPoint(mountPoint);
        var mounted = new DataVolumeMounter(here, DataVolumeMounter.qemuSources(here), runner, keys,
                duration -> Thread.sleep(duration.toMillis()), Clock.systemUTC()).runUntilMounted();
        return Optional.of("data volume " + mounted.volume().device() + " (" + mounted.volume().tags() + ") mounted at "
                + mounted.mountPoint());
    }
}
