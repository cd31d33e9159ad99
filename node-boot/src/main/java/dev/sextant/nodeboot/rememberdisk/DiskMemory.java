package dev.sextant.nodeboot.rememberdisk;

import java.io.IOException;
import java.util.Optional;

/** The node's memory of its state disk, kept in its TPM ({@link TpmDiskMemory}). */
public interface DiskMemory {
    /** Reads and checks the record; never throws for what is in the TPM, only says what it found. */
    Recall recall();

    /**
     * Records the disk a first membership (or an adoption) uses. Only possible before the node lock
     * marks PCR 15; reads the record back and checks it.
     */
    default void remember(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane) throws IOException {
        remember(diskUuid, clusterId, diskKey, controlPlane, Optional.empty());
    }

    /**
     * As {@link #remember(String, byte[], byte[], boolean)}, naming the cluster's join service role key by
     * {@code roleKeyDigest} (RememberedDisk version 2), which the node's rejoins then demand of the
     * service; empty: a record of version 1, as before.
     */
    void remember(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane, Optional<byte[]> roleKeyDigest)
            throws IOException;

    /**
     * After the remembered disk opened with the remembered key, on an image that accepted a
     * predecessor's record: records the same disk, cluster, role and key check under this image's
     * own write policy in the other slot, so the image after this one need list only this one, and
     * keeps the predecessor's, so the node rolled back to its predecessor still unlocks. Does nothing
     * when this image wrote the record. Only possible before the node lock.
     */
    default void rerecord(RememberedDisk disk) throws IOException {
        rerecord(disk, Optional.empty());
    }

    /**
     * As {@link #rerecord(RememberedDisk)}, after a rejoin that learned the cluster's join service role
     * key ({@code learnedRoleDigest}, its digest): a record of version 1 is re-recorded as version 2
     * naming it, also when this image wrote it ({@link RememberedDisk#learningJoinServiceRole}); a record
     * that names a role key keeps its own. Does nothing when the record this image would write is the one
     * the boot accepted.
     */
    void rerecord(RememberedDisk disk, Optional<byte[]> learnedRoleDigest) throws IOException;
}
