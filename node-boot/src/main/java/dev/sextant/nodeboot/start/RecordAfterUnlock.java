package dev.sextant.nodeboot.start;

import dev.sextant.keys.role.JoinServiceRoleProof;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.rememberdisk.DiskMemory;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Once the remembered disk opened with the remembered key, before the node lock (so PCR 15 is still
 * zero and the write policy is met), the TPM's record is brought up to date through
 * {@link DiskMemory#rerecord}, the one path that rewrites a record:
 * <ul>
 *   <li>a record a predecessor image wrote is recorded again under this image's policy, so the image
 *       after this one need list only this one;</li>
 *   <li>a record of version 1 (no join service role key) learns the role key the join service proved
 *       in the handshake of the rejoin whose key opened the disk, and becomes version 2: from then on
 *       every rejoin demands that proof. Only a rejoin teaches it; a recovery (the operator's key) and a
 *       rejoin whose service proved nothing leave the record as it is, and a record that names a role
 *       key keeps it.</li>
 * </ul>
 * A failure keeps the accepted record, which this image still accepts: the node comes up, and the next
 * image must list the old writer too.
 */
public final class RecordAfterUnlock {
    private static final Logger LOG = LoggerFactory.getLogger(RecordAfterUnlock.class);

    private final DiskMemory memory;

    public RecordAfterUnlock(DiskMemory memory) {
        this.memory = memory;
    }

    /** @param membership what the disk's key gave: its role key, if a rejoin's service proved one */
    public void rerecord(RememberedDisk remembered, Membership membership) {
        // Only a rejoin's membership carries one (DiskUnlocker attaches it to nothing else).
        Optional<byte[]> learned = membership.joinServiceRoleKey().map(JoinServiceRoleProof::digestOf);
        try {
            memory.rerecord(remembered, learned);
        } catch (IOException e) {
            LOG.warn("The TPM keeps its record of {} as it was: {}. An image upgrading from this one must list the"
                    + " writer {} too{}", remembered, e.getMessage(), HexFormat.of().formatHex(remembered.writerDigest()),
                    learned.isPresent() && remembered.joinServiceRoleDigest().isEmpty()
                            ? "; the role key is learned at a later rejoin" : "");
        }
    }
}
