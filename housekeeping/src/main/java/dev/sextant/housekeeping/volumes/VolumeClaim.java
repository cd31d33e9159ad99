package dev.sextant.housekeeping.volumes;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The atomic step of "first node wins" without a cloud attach API: an exclusive record lock
 * (fcntl F_SETLK) on the device node, taken without waiting and held while the volume is in use.
 * Two claimants on one kernel cannot both get it. Between VMs the same rule holds one level down:
 * QEMU locks a disk image (OFD locks) so one image is attached read-write to one VM only, and
 * dm-crypt's exclusive open of the device refuses a second mapping. Shared storage across hosts
 * (iSCSI) would need SCSI-3 persistent reservations; Sextant does not support it.
 */
public final class VolumeClaim implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private VolumeClaim(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** The claim, or empty when another claimant holds the device. */
    public static Optional<VolumeClaim> tryClaim(Path device) throws IOException {
        FileChannel channel = FileChannel.open(device, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return Optional.of(new VolumeClaim(channel, lock));
            }
        } catch (OverlappingFileLockException e) {
            // Another claimant in this very process (two mounters in one JVM): the same answer, "taken".
        }
        channel.close();
        return Optional.empty();
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
