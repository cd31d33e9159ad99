package dev.sextant.nodeboot.attacks;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.nodeboot.rememberdisk.Recall;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import dev.sextant.nodeboot.rememberdisk.RememberedDiskSettings;
import dev.sextant.nodeboot.rememberdisk.TpmDiskMemory;
import dev.sextant.nodeboot.rememberdisk.WritePolicy;
import dev.sextant.nodeboot.start.UnlockPlan;
import dev.sextant.nodeboot.start.UnlockPlanner;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A host facing a node across an image upgrade (issue 39): the node's TPM holds the record image A
 * wrote; the node now boots image B, which lists A's writer digest, and re-records the disk under
 * its own. The host owns the TPM's owner hierarchy, so it may delete, define and write indices at
 * both record handles under any policy it can meet, and boot any image, the genuine old one included.
 * swtpm is the node's TPM; PCRs 4 and 11 stand for what firmware and stub measure of each image.
 */
@DisplayName("Attacks on the disk record across an image upgrade")
class UpgradeRecordAttacksTest {
    private static final String IMAGE_A = "image A";
    private static final String IMAGE_B = "image B";
    private static final String IMAGE_C = "image C";
    private static final String HOST_IMAGE = "the host's own image";
    private static final String UUID = "c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4";
    private static final String HOST_UUID = "0badd15c-0000-4000-8000-000000000001";
    private static final byte[] CLUSTER = bytes("the operator's cluster ID");
    private static final byte[] KEY = sha256(bytes("HKDF(master secret, disk UUID)"));
    private static final byte[] HOST_KEY = sha256(bytes("the host's own key"));
    private static final int RECORD_BYTES = RememberedDisk.of(UUID, CLUSTER, KEY, true, new byte[32]).encode().length;
    private static final int ATTRIBUTES = NvPublic.POLICYWRITE | NvPublic.WRITEALL | NvPublic.AUTHREAD | NvPublic.NO_DA;

    private Swtpm swtpm;
    private String writerA;

    @BeforeEach
    void nodeBootstrappedOnImageA() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.start();
        bootImage(IMAGE_A);
        memory().remember(UUID, CLUSTER, KEY, true);
        writerA = HexFormat.of().formatHex(ownWriter());
    }

    @AfterEach
    void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("a record under a writer that is neither this image's nor a listed predecessor's (the host's index) is refused on an upgrade image: the disk stays locked")
    void hostWriterRefusedOnUpgradeImage() throws Exception {
        reboot(HOST_IMAGE);
        TpmClient tpm = swtpm.client();
        tpm.nv().undefineSpace(NvIndices.REMEMBERED_DISK);
        hostWrites(NvIndices.REMEMBERED_DISK, HOST_UUID);
        reboot(IMAGE_B);
        Recall.Refused refused = assertInstanceOf(Recall.Refused.class, memory(writerA).recall());
        assertTrue(refused.why().contains("no image this one knows"), refused.why());
        assertInstanceOf(UnlockPlan.StayLocked.class, planner(writerA).plan(HOST_UUID));
    }

    @Test
    @DisplayName("a listed predecessor's record is accepted and re-recorded under this image's writer in the other slot, the predecessor's kept: the next image, listing only this one, reads it")
    void listedPredecessorRerecorded() throws Exception {
        reboot(IMAGE_B);
        UnlockPlan.Remembered plan = assertInstanceOf(UnlockPlan.Remembered.class, planner(writerA).plan(UUID));
        memory(writerA).rerecord(plan.disk());
        RememberedDisk rerecorded = assertInstanceOf(Recall.Remembered.class, memory().recall(), "B alone reads it").disk();
        byte[] writerB = ownWriter();
        assertArrayEquals(writerB, rerecorded.writerDigest());
        assertTrue(rerecorded.isKey(KEY) && rerecorded.isCluster(CLUSTER) && rerecorded.controlPlane());
        assertArrayEquals(WritePolicy.authPolicy(writerB), swtpm.client().nv().readPublic(NvIndices.REMEMBERED_DISK_NEXT)
                .authPolicy(), "B's record in the other slot");
        assertArrayEquals(WritePolicy.authPolicy(HexFormat.of().parseHex(writerA)),
                swtpm.client().nv().readPublic(NvIndices.REMEMBERED_DISK).authPolicy(), "A's record is kept");

        reboot(IMAGE_C);
        UnlockPlan.Remembered onC = assertInstanceOf(UnlockPlan.Remembered.class,
                planner(HexFormat.of().formatHex(writerB)).plan(UUID), "C lists only B; A's record is ignored beside B's");
        assertArrayEquals(writerB, onC.disk().writerDigest());
    }

    @Test
    @DisplayName("the host's index at the second handle beside the genuine record gives nothing: the genuine disk is unlocked, the host's disk stays locked")
    void hostIndexAtTheSecondHandle() throws Exception {
        reboot(HOST_IMAGE);
        hostWrites(NvIndices.REMEMBERED_DISK_NEXT, HOST_UUID);
        reboot(IMAGE_B);
        assertInstanceOf(UnlockPlan.StayLocked.class, planner(writerA).plan(HOST_UUID));
        assertTrue(assertInstanceOf(UnlockPlan.Remembered.class, planner(writerA).plan(UUID)).disk().isKey(KEY));
    }

    @Test
    @DisplayName("after the re-record, a host that replaces the kept predecessor's index with one under the predecessor's write policy cannot write it (the TPM refuses the PCR policy), and the node unlocks from its own record")
    void predecessorIndexRecreatedAfterRerecord() throws Exception {
        reboot(IMAGE_B);
        memory(writerA).rerecord(assertInstanceOf(Recall.Remembered.class, memory(writerA).recall()).disk());
        reboot(HOST_IMAGE);
        TpmClient tpm = swtpm.client();
        byte[] a = HexFormat.of().parseHex(writerA);
        tpm.nv().undefineSpace(NvIndices.REMEMBERED_DISK);
        tpm.nv().defineSpace(NvIndices.REMEMBERED_DISK, ATTRIBUTES, WritePolicy.authPolicy(a), RECORD_BYTES);
        int session = tpm.policy().startPolicySession();
        try {
            assertThrows(TpmException.class, () -> tpm.policy().pcr(session, WritePolicy.PCRS, a), "not image A's PCRs");
        } finally {
            tpm.flushContext(session);
        }
        reboot(IMAGE_B);
        assertTrue(assertInstanceOf(UnlockPlan.Remembered.class, planner(writerA).plan(UUID)).disk().isDisk(UUID));
    }

    @Test
    @DisplayName("two genuine records of different disks (an old image from before the slots booted again and bootstrapped afresh, knowing only the main handle) are refused: the node cannot tell which is current")
    void twoGenuineRecordsDisagree() throws Exception {
        reboot(IMAGE_B);
        memory(writerA).rerecord(assertInstanceOf(Recall.Remembered.class, memory(writerA).recall()).disk());
        reboot(IMAGE_A);
        // Image A's code from before the slots, at a fresh bootstrap: it knows one handle only, finds its own
        // index there (kept) and writes over it, and leaves B's record where it is.
        byte[] a = ownWriter();
        write(NvIndices.REMEMBERED_DISK, RememberedDisk.of(HOST_UUID, CLUSTER, HOST_KEY, true, a));
        reboot(IMAGE_B);
        Recall.Refused refused = assertInstanceOf(Recall.Refused.class, memory(writerA).recall());
        assertTrue(refused.why().contains("disagree"), refused.why());
        assertInstanceOf(UnlockPlan.StayLocked.class, planner(writerA).plan(UUID));
        assertInstanceOf(UnlockPlan.StayLocked.class, planner(writerA).plan(HOST_UUID));
    }

    // --- the node and the host's tools ---

    private void bootImage(String image) throws Exception {
        swtpm.client().pcr().extend(4, sha256(bytes(image + " Authenticode hash")));
        swtpm.client().pcr().extend(11, sha256(bytes(image + " UKI sections")));
    }

    private void reboot(String image) throws Exception {
        swtpm.restart();
        bootImage(image);
    }

    private TpmDiskMemory memory(String... predecessors) throws Exception {
        return new TpmDiskMemory(swtpm.client(), new RememberedDiskSettings(false, List.of(predecessors)));
    }

    private UnlockPlanner planner(String... predecessors) throws Exception {
        RememberedDiskSettings settings = new RememberedDiskSettings(false, List.of(predecessors));
        return new UnlockPlanner(new TpmDiskMemory(swtpm.client(), settings), settings, () -> true);
    }

    private byte[] ownWriter() throws Exception {
        return WritePolicy.writerBeforeLock(swtpm.client().pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
    }

    /** The host's image booted: an index with the genuine attributes under a PCR policy the host meets, its disk recorded. */
    private void hostWrites(int handle, String uuid) throws Exception {
        byte[] hostWriter = ownWriter();
        swtpm.client().nv().defineSpace(handle, ATTRIBUTES, WritePolicy.authPolicy(hostWriter), RECORD_BYTES);
        write(handle, RememberedDisk.of(uuid, CLUSTER, HOST_KEY, true, hostWriter));
    }

    private void write(int handle, RememberedDisk record) throws Exception {
        TpmClient tpm = swtpm.client();
        int session = tpm.policy().startPolicySession();
        tpm.policy().pcr(session, WritePolicy.PCRS, record.writerDigest());
        tpm.nv().writeUnderPolicy(handle, record.encode(), session);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
