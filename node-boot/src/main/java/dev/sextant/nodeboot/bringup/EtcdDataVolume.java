package dev.sextant.nodeboot.bringup;

import dev.sextant.housekeeping.volumes.DataVolumeMounter;
import dev.sextant.housekeeping.volumes.DataVolumes;
import dev.sextant.nodeboot.deploy.ControlPlaneEtcd;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A control plane's data volume (kops' protokube: "master volumes containing etcd data", found by their
 * tags), for its etcd member's data: mounted on etcd's data dir ({@link ControlPlaneEtcd#dataDir}) before
 * etcd starts, so the member's data lives on the volume and is found there again at every boot, whatever
 * image the node boots. On the data dir itself, not beside it: etcd's command line and the one path
 * its unit may write ({@code ReadWritePaths=} of sextant-etcd.service) stay the same with and without a
 * volume. A control plane without one (data volumes switched off) keeps the data dir on its encrypted
 * state disk, and says so in the log.
 */
@Singleton
public final class EtcdDataVolume {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdDataVolume.class);

    private final DataVolumes volumes;
    private final Path dataDir;

    @Inject
    public EtcdDataVolume(DataVolumes volumes, NodeLocalSettings settings) {
        this(volumes, ControlPlaneEtcd.dataDir(settings));
    }

    EtcdDataVolume(DataVolumes volumes, Path dataDir) {
        this.volumes = volumes;
        this.dataDir = dataDir;
    }

    /** What was mounted, for the progress line; empty when etcd's data stays on the state disk. */
    Optional<String> mount(DataVolumeMounter.VolumeKeys keys) throws StepFailed, InterruptedException {
        if (!volumes.enabled()) {
            LOG.info("No data volume (sextant.data-volume.enabled is off): etcd's data stays on the state disk, in {}", dataDir);
            return Optional.empty();
        }
        if (memberOnStateDisk()) {
            // A volume mounted over it would hide the member's data, and etcd would start an empty member under
            // the same name (on the init node: a new cluster of one, every binding forgotten).
            LOG.warn("etcd's member started on the state disk ({}) before this control plane had a data volume:"
                    + " its data stays there, and no volume is mounted over it", dataDir);
            return Optional.empty();
        }
        return volumes.mount(keys, dataDir).map(mounted -> mounted + " (etcd's data)");
    }

    /** A member's data in the data dir of the state disk itself: no volume is mounted there (yet). */
    private boolean memberOnStateDisk() throws StepFailed {
        try {
            return Files.isDirectory(dataDir.resolve("member")) && !ControlPlaneEtcd.onOwnFileSystem(dataDir);
        } catch (IOException e) {
            throw new StepFailed("reading etcd's data dir " + dataDir + ": " + e.getMessage());
        }
    }
}
