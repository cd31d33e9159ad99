package dev.sextant.nodeboot.rememberdisk;

import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateDiskSettings;
import dev.sextant.keys.role.JoinServiceRoleProof;
import dev.sextant.nodeboot.nodelock.FirstBootstrap;
import dev.sextant.nodeboot.nodelock.FirstBootstrapRecorder;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;

/**
 * At a first membership, between the node lock and the PCR 15 mark: the TPM remembers the state
 * disk init or join prepared (its UUID is known before the lock, keys are per UUID), with the
 * cluster, the role, the key it is about to be re-keyed with and, when the membership knows it, the
 * cluster's join service role key (by digest), which the node's rejoins then demand.
 */
@Singleton
public final class DiskRecorder implements FirstBootstrapRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(DiskRecorder.class);

    private final StateDisk disk;
    private final StateDiskSettings settings;
    private final DiskMemory memory;

    public DiskRecorder(StateDisk disk, StateDiskSettings settings, DiskMemory memory) {
        this.disk = disk;
        this.settings = settings;
        this.memory = memory;
    }

    @Override
    public void remember(FirstBootstrap first) throws IOException {
        if (!Files.exists(settings.device())) {
            LOG.warn("No state disk at {}: the TPM remembers none (development node)", settings.device());
            return;
        }
        String uuid;
        try {
            uuid = disk.uuid();
        } catch (DiskCryptException e) {
            throw new IOException("reading the state disk's UUID to record it: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the state disk's UUID", e);
        }
        memory.remember(uuid, first.clusterId(), first.diskKey(), first.controlPlane(),
                first.joinServiceRoleKey().map(JoinServiceRoleProof::digestOf));
    }
}
