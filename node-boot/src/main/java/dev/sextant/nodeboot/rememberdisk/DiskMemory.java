package dev.sextant.nodeboot.rememberdisk;

import java.io.IOException;

/** The node's memory of its state disk, kept in its TPM ({@link TpmDiskMemory}). */
public interface DiskMemory {
    /** Reads and checks the record; never throws for what is in the TPM, only says what it found. */
    Recall recall();

    /**
     * Records the disk a first membership (or an adoption) uses. Only possible before the node lock
     * marks PCR 15; reads the record back and checks it.
     */
    void remember(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane) throws IOException;

    /**
     * After the remembered disk opened with the remembered key, on an image that accepted a
     * predecessor's record: records the same disk, cluster, role and key check under this image's
     * own write policy and removes the predecessor's, so the image after this one need list only this
     * one. Does nothing when this image wrote the record. Only possible before the node lock.
     */
    void rerecord(RememberedDisk disk) throws IOException;
}
