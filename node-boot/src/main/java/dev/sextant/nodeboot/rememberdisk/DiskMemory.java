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
}
