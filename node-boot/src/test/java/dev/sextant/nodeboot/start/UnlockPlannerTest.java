package dev.sextant.nodeboot.start;

import dev.sextant.nodeboot.rememberdisk.DiskMemory;
import dev.sextant.nodeboot.rememberdisk.Recall;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import dev.sextant.nodeboot.rememberdisk.RememberedDiskSettings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The unlock decision from each thing the TPM may hold (the TPM itself: TpmDiskMemoryTest, ForeignDiskAttacksTest). */
class UnlockPlannerTest {
    private static final String UUID = "c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4";
    private static final RememberedDisk CONTROL_PLANE = RememberedDisk.of(UUID, new byte[32], new byte[32], true, new byte[32]);

    private static UnlockPlanner planner(Recall recall, boolean adopt, boolean hostSaysControlPlane) {
        DiskMemory memory = new DiskMemory() {
            @Override
            public Recall recall() {
                return recall;
            }

            @Override
            public void remember(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane,
                                 java.util.Optional<byte[]> roleKeyDigest) {
                throw new AssertionError("planning records nothing");
            }

            @Override
            public void rerecord(RememberedDisk disk, java.util.Optional<byte[]> learnedRoleDigest) {
                throw new AssertionError("planning records nothing");
            }
        };
        return new UnlockPlanner(memory, new RememberedDiskSettings(adopt, List.of()), () -> hostSaysControlPlane);
    }

    @Test
    @DisplayName("the remembered disk is unlocked, recovery served for a recorded control plane whatever the host's setting says")
    void rememberedDisk() {
        UnlockPlan plan = planner(new Recall.Remembered(CONTROL_PLANE), false, false).plan(UUID.toUpperCase());
        assertSame(CONTROL_PLANE, assertInstanceOf(UnlockPlan.Remembered.class, plan).disk());
        assertTrue(plan.serveRecovery());
    }

    @Test
    @DisplayName("nothing recorded: the disk stays locked, and the refusal names the setting that adopts it once")
    void nothingRecordedStaysLocked() {
        UnlockPlan plan = planner(new Recall.NothingRecorded("the TPM holds no record"), false, true).plan(UUID);
        String reason = assertInstanceOf(UnlockPlan.StayLocked.class, plan).reason();
        assertTrue(reason.contains(UUID) && reason.contains(RememberedDiskSettings.INSECURE_ADOPT), reason);
        assertFalse(plan.serveRecovery());
    }

    @Test
    @DisplayName("nothing recorded, on an image that adopts: unlocked as before records, recovery as the host's setting says")
    void adoptsUnderTheInsecureSetting() {
        assertEquals(new UnlockPlan.Adopt(true), planner(new Recall.NothingRecorded("none"), true, true).plan(UUID));
        assertEquals(new UnlockPlan.Adopt(false), planner(new Recall.NothingRecorded("none"), true, false).plan(UUID));
    }

    @Test
    @DisplayName("a refused record keeps the disk locked even on an image that adopts unrecorded disks")
    void refusedRecordIsNotAdopted() {
        UnlockPlan plan = planner(new Recall.Refused("someone else's index"), true, true).plan(UUID);
        assertTrue(assertInstanceOf(UnlockPlan.StayLocked.class, plan).reason().startsWith("someone else's index"));
    }
}
