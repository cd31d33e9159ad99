package dev.sextant.housekeeping.volumes;

import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateDiskSettings;
import dev.sextant.diskcrypt.StateMount;
import dev.sextant.housekeeping.retry.Sleeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Finds this control-plane node's data volume and puts its datastore (the etcd member's data) on it: candidates
 * are volumes tagged for this cluster, role and zone; the node claims at most one
 * ({@link VolumeClaim}), and a volume held by another node is simply skipped. A new volume is
 * LUKS2-formatted and re-keyed to the cluster key for its UUID, exactly like the state disk
 * (same header validation, same key scheme), then opened, given a file system and mounted.
 * Without a volume the node looks again every {@link DataVolumeSettings#retryInterval()}.
 */
public final class DataVolumeMounter {
    private static final Logger LOG = LoggerFactory.getLogger(DataVolumeMounter.class);

    /** The cluster key for a LUKS UUID: ClusterKeys::diskKey on the init node, the KMS's data key elsewhere. */
    @FunctionalInterface
    public interface VolumeKeys {
        byte[] keyFor(String luksUuid) throws IOException;

        /**
         * Asked before a volume without a LUKS2 header of its own is formatted: a refusal leaves it as
         * it is, and the node looks again (a node that had a volume must not take a blank one for it).
         */
        default void admitNew(Volume volume) throws IOException {
        }
    }

    public sealed interface Outcome {
        record Mounted(Volume volume, Path mountPoint) implements Outcome {
        }

        record Waiting(String reason) implements Outcome {
        }
    }

    private final DataVolumeSettings settings;
    private final List<VolumeSource> sources;
    private final CommandRunner runner;
    private final VolumeKeys keys;
    private final Sleeper sleeper;
    private final Clock clock;
    private VolumeClaim claim;
    private Outcome.Mounted mounted;

    public DataVolumeMounter(DataVolumeSettings settings, List<VolumeSource> sources, CommandRunner runner,
                             VolumeKeys keys, Sleeper sleeper, Clock clock) {
        this.settings = settings;
        this.sources = List.copyOf(sources);
        this.runner = runner;
        this.keys = keys;
        this.sleeper = sleeper;
        this.clock = clock;
    }

    /** Both QEMU tag carriers under the configured sysfs and /dev. */
    public static List<VolumeSource> qemuSources(DataVolumeSettings settings) {
        return List.of(new VirtioSerialSource(settings.sysRoot().resolve("block"), settings.devDir()),
                new GptLabelSource(settings.sysRoot().resolve("class/block"), settings.devDir()));
    }

    /** Looks every retry interval until a volume is mounted. */
    public synchronized Outcome.Mounted runUntilMounted() throws InterruptedException {
        while (true) {
            Outcome outcome = syncOnce();
            if (outcome instanceof Outcome.Mounted m) {
                return m;
            }
            LOG.info("Data volume: {}; looking again at {}", ((Outcome.Waiting) outcome).reason(),
                    clock.instant().plus(settings.retryInterval()));
            sleeper.sleep(settings.retryInterval());
        }
    }

    /** One look: mounted (now or before), or why not. */
    public synchronized Outcome syncOnce() throws InterruptedException {
        if (mounted != null) {
            return mounted;
        }
        List<Volume> candidates;
        try {
            candidates = candidates();
        } catch (IOException e) {
            return new Outcome.Waiting("listing volumes failed: " + e.getMessage());
        }
        if (candidates.isEmpty()) {
            return new Outcome.Waiting("no volume tagged sx1:" + settings.cluster() + ":" + settings.role() + ":"
                    + settings.zone() + ":* is visible");
        }
        List<String> held = new ArrayList<>();
        for (Volume volume : candidates) {
            Optional<VolumeClaim> won;
            try {
                won = VolumeClaim.tryClaim(volume.device());
            } catch (IOException e) {
                LOG.warn("Data volume: cannot open {}: {}", volume.device(), e.getMessage());
                continue;
            }
            if (won.isEmpty()) {
                held.add(volume.tags().member());
                continue;
            }
            claim = won.get();
            try {
                mountClaimed(volume);
                mounted = new Outcome.Mounted(volume, settings.mountPoint());
                LOG.info("Data volume: member {} ({}, {}) mounted on {}", volume.tags().member(), volume.device(),
                        volume.source(), settings.mountPoint());
                return mounted;
            } catch (DiskCryptException | IOException e) {
                release();
                return new Outcome.Waiting("preparing " + volume.device() + " failed: " + e.getMessage());
            }
        }
        // Losing the race to another control plane is the normal case for all but one node.
        return new Outcome.Waiting("every candidate is held by another node (members " + String.join(", ", held) + ")");
    }

    /** Gives the volume up (the node leaves); its mount and mapping are the caller's to undo first. */
    public synchronized void release() {
        mounted = null;
        if (claim != null) {
            try {
                claim.close();
            } catch (IOException e) {
                LOG.warn("Data volume: releasing the claim: {}", e.getMessage());
            }
            claim = null;
        }
    }

    List<Volume> candidates() throws IOException {
        List<Volume> all = new ArrayList<>();
        for (VolumeSource source : sources) {
            for (Volume v : source.volumes()) {
                VolumeTags t = v.tags();
                if (!t.cluster().equals(settings.cluster())) {
                    LOG.debug("Data volume: {} belongs to cluster {}, not ours", v.device(), t.cluster());
                } else if (t.role().equals(settings.role()) && t.zone().equals(settings.zone())) {
                    all.add(v);
                }
            }
        }
        all.sort(Comparator.comparing((Volume v) -> v.tags().member()).thenComparing(v -> v.device().toString()));
        return all;
    }

    private void mountClaimed(Volume volume) throws DiskCryptException, IOException, InterruptedException {
        StateDiskSettings luksSettings = new StateDiskSettings(volume.device(), settings.workDir(),
                settings.workDir().resolve("unused.key"), settings.pbkdfMemoryKib(), settings.pbkdfIterations());
        StateDisk luks = new StateDisk(luksSettings, runner);
        // An uninitialized LUKS header is a format that stopped before the re-key: nothing was written under it.
        boolean fresh = !run(List.of("cryptsetup", "isLuks", "--type", "luks2", volume.device().toString()), new byte[0])
                .ok() || !luks.isInitialized();
        if (fresh) {
            keys.admitNew(volume);
            LOG.info("Data volume: formatting new volume {} ({})", volume.device(), volume.tags());
            byte[] passphrase = luks.formatWithRandomPassphrase();
            byte[] key = keys.keyFor(luks.uuid());
            try {
                luks.rekey(passphrase, key);
            } finally {
                Arrays.fill(passphrase, (byte) 0);
                Arrays.fill(key, (byte) 0);
            }
        }
        byte[] key = keys.keyFor(luks.uuid());
        try {
            // The state disk's open: through the validated header copy, ext4 on first use, then mounted.
            new StateDisk(luksSettings, new StateMount(settings.mapperName(), settings.mountPoint(), true), runner)
                    .openAndMount(key);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    private CommandRunner.Result run(List<String> argv, byte[] stdin) throws IOException, InterruptedException {
        return runner.run(argv, stdin);
    }

}
