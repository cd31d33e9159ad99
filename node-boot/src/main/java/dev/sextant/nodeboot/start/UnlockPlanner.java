package dev.sextant.nodeboot.start;

import dev.sextant.nodeboot.rememberdisk.DiskMemory;
import dev.sextant.nodeboot.rememberdisk.Recall;
import dev.sextant.nodeboot.rememberdisk.RememberedDiskSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.BooleanSupplier;

/**
 * Decides, before any key is asked for, whether the attached initialized disk may be unlocked and
 * whether recovery is served: from the TPM's record of the disk the node bootstrapped on, never
 * from a setting the host fills. A disk the TPM does not remember stays locked, named beside the
 * remembered one; a record the genuine image did not write is refused.
 */
public final class UnlockPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(UnlockPlanner.class);

    private final DiskMemory memory;
    private final RememberedDiskSettings settings;
    private final BooleanSupplier configuredControlPlane;

    /**
     * @param configuredControlPlane the role the host's settings give the node; consulted only when
     *                               adopting an unrecorded disk under the insecure setting
     */
    public UnlockPlanner(DiskMemory memory, RememberedDiskSettings settings, BooleanSupplier configuredControlPlane) {
        this.memory = memory;
        this.settings = settings;
        this.configuredControlPlane = configuredControlPlane;
    }

    public UnlockPlan plan(String attachedUuid) {
        Recall recall = memory.recall();
        if (recall instanceof Recall.Remembered remembered) {
            if (remembered.disk().isDisk(attachedUuid)) {
                return new UnlockPlan.Remembered(remembered.disk());
            }
            return new UnlockPlan.StayLocked("state disk " + attachedUuid + " is not the disk this node's TPM remembers ("
                    + remembered.disk().diskUuid() + "): it stays locked, neither rejoin nor recovery runs");
        }
        if (recall instanceof Recall.NothingRecorded nothing) {
            if (settings.insecureAdoptUnrecorded()) {
                boolean recovery = configuredControlPlane.getAsBoolean();
                LOG.warn("INSECURE: {}; state disk {} is adopted as before records ({}=true): recovery {} as the host's"
                        + " settings say, and whatever key opens it is recorded", nothing.why(), attachedUuid,
                        RememberedDiskSettings.INSECURE_ADOPT, recovery ? "is served" : "is not served");
                return new UnlockPlan.Adopt(recovery);
            }
            return new UnlockPlan.StayLocked(nothing.why() + ": state disk " + attachedUuid + " stays locked. A node"
                    + " bootstrapped before its TPM remembered disks is adopted once by an image built with "
                    + RememberedDiskSettings.INSECURE_ADOPT + "=true");
        }
        return new UnlockPlan.StayLocked(((Recall.Refused) recall).why() + ": state disk " + attachedUuid
                + " stays locked");
    }
}
