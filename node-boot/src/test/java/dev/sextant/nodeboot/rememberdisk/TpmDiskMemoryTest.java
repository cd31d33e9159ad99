package dev.sextant.nodeboot.rememberdisk;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.nodeboot.nodelock.FirstBootstrap;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.nodeboot.nodelock.TpmPcrMarker;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpm.command.TpmRc;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TPM's record of the state disk, on a real swtpm: written before the lock, read back with its public area checked. */
class TpmDiskMemoryTest {
    static final String UUID = "c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4";
    static final byte[] CLUSTER = bytes("cluster ID of the operator's cluster");
    static final byte[] KEY = bytes("the state disk key from the master");

    private Swtpm swtpm;

    @BeforeEach
    void boot() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.start();
        bootImage("image v1");
    }

    @AfterEach
    void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    /** What firmware and the UKI stub leave in PCRs 4 and 11 when {@code image} boots. */
    private void bootImage(String image) throws Exception {
        swtpm.client().pcr().extend(4, sha256(image + " Authenticode hash"));
        swtpm.client().pcr().extend(11, sha256(image + " .linux .initrd .cmdline"));
    }

    private void reboot(String image) throws Exception {
        swtpm.restart();
        bootImage(image);
    }

    private TpmDiskMemory memory(String... predecessors) throws IOException {
        return new TpmDiskMemory(swtpm.client(), new RememberedDiskSettings(false, List.of(predecessors)));
    }

    @Test
    @DisplayName("at first bootstrap the TPM remembers disk, cluster, role and key; after a reboot into the same image it still does")
    void remembersAcrossReboot() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, true);
        reboot("image v1");
        RememberedDisk disk = assertInstanceOf(Recall.Remembered.class, memory().recall()).disk();
        assertTrue(disk.isDisk(UUID.toUpperCase()));
        assertTrue(disk.isCluster(CLUSTER));
        assertFalse(disk.isCluster(bytes("another cluster")));
        assertTrue(disk.isKey(KEY));
        assertFalse(disk.isKey(bytes("the host's own key for its own disk")));
        assertTrue(disk.controlPlane());
        assertArrayEquals(sha256(CLUSTER), disk.clusterIdDigest());
    }

    @Test
    @DisplayName("a TPM that never recorded a disk says so (nothing recorded), it does not refuse")
    void nothingRecorded() throws Exception {
        assertInstanceOf(Recall.NothingRecorded.class, memory().recall());
    }

    @Test
    @DisplayName("once PCR 15 is marked nothing in that boot can write the record: the node refuses, and the TPM refuses the PCR policy")
    void noWriteAfterTheMark() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        new TpmPcrMarker(swtpm.client()).mark(CLUSTER);
        IOException e = assertThrows(IOException.class, () -> memory().remember(UUID, CLUSTER, bytes("other"), true));
        assertTrue(e.getMessage().contains("PCR 15 is already marked"), e.getMessage());

        TpmClient tpm = swtpm.client();
        byte[] beforeLock = WritePolicy.writerBeforeLock(tpm.pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
        int session = tpm.policy().startPolicySession();
        try {
            TpmException refused = assertThrows(TpmException.class, () -> tpm.policy().pcr(session, WritePolicy.PCRS, beforeLock));
            assertTrue(refused.is(TpmRc.VALUE), refused.getMessage());
        } finally {
            tpm.flushContext(session);
        }
        assertFalse(assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().controlPlane(), "unchanged");
    }

    @Test
    @DisplayName("after an upgrade (other PCR 4 and 11) the old image's record is refused, naming its writer, unless the new image lists that writer as a predecessor")
    void upgradeNeedsThePredecessorListed() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String writer = HexFormat.of().formatHex(
                assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().writerDigest());
        reboot("image v2");
        Recall.Refused refused = assertInstanceOf(Recall.Refused.class, memory().recall());
        assertTrue(refused.why().contains(writer) && refused.why().contains(RememberedDiskSettings.PREDECESSORS), refused.why());
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory(writer).recall()).disk().isDisk(UUID));
    }

    @Test
    @DisplayName("a node that bootstraps afresh on a new image replaces the old image's index with its own")
    void freshBootstrapReplacesAnOldIndex() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        reboot("image v2");
        String fresh = "0f0e0d0c-0b0a-4909-8807-060504030201";
        memory().remember(fresh, CLUSTER, KEY, true);
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().isDisk(fresh));
    }

    @Test
    @DisplayName("an upgraded node re-records a listed predecessor's record under its own writer (same disk, cluster, role, key) and removes the old index: the image after it needs to list only it")
    void rerecordsUnderItsOwnWriter() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, true);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        RememberedDisk accepted = assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk();
        memory(v1).rerecord(accepted);
        RememberedDisk v2Record = assertInstanceOf(Recall.Remembered.class, memory().recall(), "no predecessor needed now").disk();
        assertTrue(v2Record.sameDiskAs(accepted) && v2Record.isKey(KEY) && v2Record.controlPlane() && v2Record.isCluster(CLUSTER));
        assertFalse(HexFormat.of().formatHex(v2Record.writerDigest()).equals(v1));
        assertFalse(defined(TpmDiskMemory.INDEX), "the predecessor's index is gone");
        assertTrue(defined(TpmDiskMemory.NEXT));

        String v2 = writerOfRecord(memory());
        reboot("image v3");
        RememberedDisk onV3 = assertInstanceOf(Recall.Remembered.class, memory(v2).recall(), "v3 lists only v2").disk();
        memory(v2).rerecord(onV3);
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().isDisk(UUID));
        assertTrue(defined(TpmDiskMemory.INDEX), "back at the first handle");
        assertFalse(defined(TpmDiskMemory.NEXT));
    }

    @Test
    @DisplayName("a crash after the new record is written and before the old index is removed leaves a node that unlocks, and the next re-record finishes the move")
    void crashBetweenWriteAndRemove() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String v1 = writerOfRecord(memory());
        RememberedDisk old = assertInstanceOf(Recall.Remembered.class, memory().recall()).disk();
        reboot("image v2");
        byte[] v2 = ownWriter();
        // What rerecord does up to its crash: the new record at the second handle, the old one still there.
        TpmClient tpm = swtpm.client();
        tpm.nv().defineSpace(TpmDiskMemory.NEXT, TpmDiskMemory.ATTRIBUTES, WritePolicy.authPolicy(v2), RememberedDisk.BYTES);
        int session = tpm.policy().startPolicySession();
        tpm.policy().pcr(session, WritePolicy.PCRS, v2);
        tpm.nv().writeUnderPolicy(TpmDiskMemory.NEXT, old.rewrittenBy(v2).encode(), session);

        reboot("image v2");
        RememberedDisk both = assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk();
        assertArrayEquals(v2, both.writerDigest(), "of two records of the same disk, this image's own is taken");
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall(), "unlisted predecessor ignored beside it")
                .disk().isDisk(UUID));
        memory(v1).rerecord(both);
        assertFalse(defined(TpmDiskMemory.INDEX));
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().isKey(KEY));
    }

    @Test
    @DisplayName("after the node lock marked PCR 15 nothing is re-recorded: the predecessor's record is kept")
    void noRerecordAfterTheMark() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        RememberedDisk accepted = assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk();
        new TpmPcrMarker(swtpm.client()).mark(CLUSTER);
        IOException e = assertThrows(IOException.class, () -> memory(v1).rerecord(accepted));
        assertTrue(e.getMessage().contains("PCR 15 is already marked"), e.getMessage());
        assertEquals(v1, HexFormat.of().formatHex(assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk().writerDigest()));
    }

    @Test
    @DisplayName("a node that bootstraps afresh removes a record at the second handle too, so no two records disagree")
    void freshBootstrapClearsTheSecondHandle() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        memory(v1).rerecord(assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk());
        String fresh = "0f0e0d0c-0b0a-4909-8807-060504030201";
        memory().remember(fresh, CLUSTER, KEY, true);
        assertFalse(defined(TpmDiskMemory.NEXT));
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().isDisk(fresh));
    }

    private String writerOfRecord(TpmDiskMemory memory) {
        return HexFormat.of().formatHex(assertInstanceOf(Recall.Remembered.class, memory.recall()).disk().writerDigest());
    }

    private byte[] ownWriter() throws Exception {
        return WritePolicy.writerBeforeLock(swtpm.client().pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
    }

    private boolean defined(int handle) throws Exception {
        try {
            swtpm.client().nv().readPublic(handle);
            return true;
        } catch (TpmException e) {
            if (e.is(TpmRc.HANDLE)) {
                return false;
            }
            throw e;
        }
    }

    @Test
    @DisplayName("the node lock has the TPM remember a first membership's disk before it marks PCR 15, and refuses init or join without it")
    void nodeLockRecordsBeforeTheMark() throws Exception {
        TpmDiskMemory memory = memory();
        NodeLock lock = new NodeLock(new TpmPcrMarker(swtpm.client()),
                first -> memory.remember(UUID, first.clusterId(), first.diskKey(), first.controlPlane()));
        assertThrows(IllegalArgumentException.class, () -> lock.tryLockOnce(LockHolder.JOIN, CLUSTER));
        assertTrue(lock.tryLockOnce(LockHolder.JOIN, CLUSTER, new FirstBootstrap(CLUSTER, KEY, false)).won());
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory.recall()).disk().isKey(KEY));
        byte[] pcr15 = swtpm.client().pcr().readAll(TpmAlg.SHA256).get(15);
        assertArrayEquals(sha256(concat(new byte[32], sha256(CLUSTER))), pcr15, "marked after recording");
    }

    @Test
    @DisplayName("a record round-trips through its bytes; bytes of another size, version or role are refused")
    void encoding() throws Exception {
        RememberedDisk disk = RememberedDisk.of(UUID, CLUSTER, KEY, true, new byte[32]);
        assertTrue(RememberedDisk.decode(disk.encode()).sameAs(disk));
        byte[] bytes = disk.encode();
        assertThrows(RememberedDisk.RecordUnreadable.class, () -> RememberedDisk.decode(new byte[10]));
        bytes[0] = 2;
        assertThrows(RememberedDisk.RecordUnreadable.class, () -> RememberedDisk.decode(bytes));
        bytes[0] = 1;
        bytes[1] = 7;
        assertThrows(RememberedDisk.RecordUnreadable.class, () -> RememberedDisk.decode(bytes));
        assertFalse(disk.toString().contains(HexFormat.of().formatHex(KEY)));
        assertEquals(-1, disk.toString().indexOf("check"));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] sha256(String s) throws Exception {
        return sha256(bytes(s));
    }

    static byte[] sha256(byte[] b) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(b);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
