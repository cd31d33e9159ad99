package dev.sextant.nodeboot.start;

import dev.sextant.nodeboot.rememberdisk.RememberedDisk;

/** How a boot with an initialized state disk goes, decided from what the TPM remembers. */
public sealed interface UnlockPlan {
    /** Whether the recovery endpoint is served while the disk waits. */
    boolean serveRecovery();

    /** The TPM remembers this disk: unlock it; recovery only if it was recorded as a control plane's. */
    record Remembered(RememberedDisk disk) implements UnlockPlan {
        @Override
        public boolean serveRecovery() {
            return disk.controlPlane();
        }
    }

    /**
     * No record, and the image adopts unrecorded disks (insecure-adopt-unrecorded): unlock as before
     * records, then record the disk.
     */
    record Adopt(boolean serveRecovery) implements UnlockPlan {
    }

    /** The disk is not unlocked at this boot: neither rejoin nor recovery runs. */
    record StayLocked(String reason) implements UnlockPlan {
        @Override
        public boolean serveRecovery() {
            return false;
        }
    }
}
