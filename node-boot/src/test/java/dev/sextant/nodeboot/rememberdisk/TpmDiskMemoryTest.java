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
    @DisplayName("an upgraded node re-records a listed predecessor's record under its own writer (same disk, cluster, role, key) in the other slot and keeps the predecessor's: the image after it needs to list only it, and overwrites the older of the two")
    void rerecordsUnderItsOwnWriter() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, true);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        RememberedDisk accepted = assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk();
        memory(v1).rerecord(accepted);
        RememberedDisk v2Record = assertInstanceOf(Recall.Remembered.class, memory().recall(), "no predecessor needed now").disk();
        assertTrue(v2Record.sameDiskAs(accepted) && v2Record.isKey(KEY) && v2Record.controlPlane() && v2Record.isCluster(CLUSTER));
        String v2 = HexFormat.of().formatHex(v2Record.writerDigest());
        assertFalse(v2.equals(v1));
        assertEquals(v1, writerAt(TpmDiskMemory.INDEX), "the predecessor's record is kept");
        assertEquals(v2, writerAt(TpmDiskMemory.NEXT));

        reboot("image v3");
        RememberedDisk onV3 = assertInstanceOf(Recall.Remembered.class, memory(v2).recall(), "v3 lists only v2").disk();
        memory(v2).rerecord(onV3);
        String v3 = writerOfRecord(memory());
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().isDisk(UUID));
        assertEquals(v3, writerAt(TpmDiskMemory.INDEX), "v1's record, the older, is overwritten");
        assertEquals(v2, writerAt(TpmDiskMemory.NEXT), "v2's is kept for a rollback to v2");
    }

    @Test
    @DisplayName("a node rolled back to its old image after the new one re-recorded still unlocks, writes nothing, and unlocks on the new image again when rolled forward")
    void rollbackAfterRerecordStillUnlocks() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        memory(v1).rerecord(assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk());
        String v2 = writerOfRecord(memory());

        reboot("image v1");
        RememberedDisk onV1 = assertInstanceOf(Recall.Remembered.class, memory().recall(),
                "v1 lists no predecessor: v2's record is ignored beside its own").disk();
        assertEquals(v1, HexFormat.of().formatHex(onV1.writerDigest()));
        assertTrue(onV1.isDisk(UUID) && onV1.isKey(KEY) && onV1.isCluster(CLUSTER) && !onV1.controlPlane());
        memory().rerecord(onV1);
        assertEquals(v1, writerAt(TpmDiskMemory.INDEX));
        assertEquals(v2, writerAt(TpmDiskMemory.NEXT), "the newer image's record stays for the rollout's next try");

        reboot("image v2");
        assertEquals(v2, writerOfRecord(memory(v1)), "of two records of the same disk, this image's own is taken");
    }

    @Test
    @DisplayName("a crash after the new record is written and before it is read back leaves both records of the disk: the node takes its own and re-records nothing")
    void crashAfterWrite() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String v1 = writerOfRecord(memory());
        RememberedDisk old = assertInstanceOf(Recall.Remembered.class, memory().recall()).disk();
        reboot("image v2");
        byte[] v2 = ownWriter();
        // What rerecord does up to its crash: the new record at the second handle, the old one still there.
        recordAtNext(v2, old.rewrittenBy(v2));

        reboot("image v2");
        RememberedDisk both = assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk();
        assertArrayEquals(v2, both.writerDigest(), "of two records of the same disk, this image's own is taken");
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall(), "unlisted predecessor ignored beside it")
                .disk().isDisk(UUID));
        memory(v1).rerecord(both);
        assertEquals(v1, writerAt(TpmDiskMemory.INDEX));
        assertArrayEquals(v2, HexFormat.of().parseHex(writerAt(TpmDiskMemory.NEXT)));
    }

    @Test
    @DisplayName("of two listed predecessors' records of the same disk, the first handle's is taken at every boot, and the re-record overwrites the other")
    void twoPredecessorsFirstHandleTaken() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        memory(v1).rerecord(assertInstanceOf(Recall.Remembered.class, memory(v1).recall()).disk());
        String v2 = writerOfRecord(memory());
        reboot("image v3");
        RememberedDisk taken = assertInstanceOf(Recall.Remembered.class, memory(v2, v1).recall()).disk();
        assertEquals(v1, HexFormat.of().formatHex(taken.writerDigest()), "the record at the first handle");
        assertEquals(v1, writerOfRecord(memory(v1, v2)), "whatever the list's order");
        memory(v2, v1).rerecord(taken);
        assertEquals(v1, writerAt(TpmDiskMemory.INDEX), "the accepted record is kept");
        assertEquals(writerOfRecord(memory()), writerAt(TpmDiskMemory.NEXT));
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
        assertFalse(defined(TpmDiskMemory.NEXT), "the second slot is gone");
        assertEquals(writerOfRecord(memory()), writerAt(TpmDiskMemory.INDEX), "the first holds only the fresh record");
        assertTrue(assertInstanceOf(Recall.Remembered.class, memory().recall()).disk().isDisk(fresh));
    }

    private static final byte[] ROLE_DIGEST = dev.sextant.keys.role.JoinServiceRoleProof.digestOf(
            dev.sextant.keys.role.JoinServiceRoleKey.of(bytes("the cluster's master secret"), new byte[32]).publicKey());

    private RememberedDisk recalled(TpmDiskMemory memory) {
        return assertInstanceOf(Recall.Remembered.class, memory.recall()).disk();
    }

    @Test
    @DisplayName("a version-1 record that learns the role key at a rejoin is re-recorded as version 2 by the same image in the"
            + " other slot, and the superseded version-1 record is removed: deleting the new index leaves nothing to fall back to")
    void versionOneLearnsTheRoleKey() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        RememberedDisk v1 = recalled(memory());
        assertTrue(v1.joinServiceRoleDigest().isEmpty());

        memory().rerecord(v1, java.util.Optional.of(ROLE_DIGEST));

        reboot("image v1");
        RememberedDisk learned = recalled(memory());
        assertArrayEquals(ROLE_DIGEST, learned.joinServiceRoleDigest().orElseThrow());
        assertTrue(learned.sameDiskAs(v1) && learned.isKey(KEY) && learned.isCluster(CLUSTER) && !learned.controlPlane());
        assertArrayEquals(v1.writerDigest(), learned.writerDigest(), "the same image's record");
        assertEquals(2, swtpm.client().nv().read(TpmDiskMemory.NEXT)[0], "version 2 in the other slot");
        assertFalse(defined(TpmDiskMemory.INDEX), "the version-1 record is gone");

        memory().rerecord(learned, java.util.Optional.empty());
        assertFalse(defined(TpmDiskMemory.INDEX), "nothing more to write");
    }

    @Test
    @DisplayName("a crash after the version-2 record read back and before the version-1 record was removed leaves both: the next"
            + " boot takes version 2, and its re-record removes the version-1 record, so deleting the new index leaves nothing to"
            + " fall back to")
    void crashBeforeTheVersionOneRecordWent() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        RememberedDisk v1 = recalled(memory());
        // What rerecord does up to its crash: version 2 written and read back at the other handle, version 1 still there.
        recordAtNext(ownWriter(), v1.learningJoinServiceRole(ROLE_DIGEST));

        reboot("image v1");
        RememberedDisk taken = recalled(memory());
        assertArrayEquals(ROLE_DIGEST, taken.joinServiceRoleDigest().orElseThrow(), "of the two, the one naming the role key");
        memory().rerecord(taken, java.util.Optional.empty());
        assertFalse(defined(TpmDiskMemory.INDEX), "the version-1 record is gone");
        assertArrayEquals(ROLE_DIGEST, recalled(memory()).joinServiceRoleDigest().orElseThrow(), "version 2 stays");
    }

    @Test
    @DisplayName("an upgraded node whose predecessor's record is version 1 re-records it as version 2 when its rejoin learned the"
            + " role key, in the other slot; the predecessor's record is kept for a rollback")
    void upgradeLearnsTheRoleKey() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, true);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        RememberedDisk accepted = recalled(memory(v1));

        memory(v1).rerecord(accepted, java.util.Optional.of(ROLE_DIGEST));

        RememberedDisk onV2 = recalled(memory(v1));
        assertArrayEquals(ROLE_DIGEST, onV2.joinServiceRoleDigest().orElseThrow());
        assertEquals(writerOfRecord(memory()), writerAt(TpmDiskMemory.NEXT));
        assertEquals(v1, writerAt(TpmDiskMemory.INDEX), "the predecessor's version-1 record is kept");
        assertEquals(1, swtpm.client().nv().read(TpmDiskMemory.INDEX)[0]);
    }

    @Test
    @DisplayName("a node that re-recorded its predecessor's version-1 record at an earlier boot learns the role key later by"
            + " overwriting its own record in place: the predecessor's, in the other slot, is kept for a rollback")
    void learningAfterTheUpgradeKeepsThePredecessor() throws Exception {
        memory().remember(UUID, CLUSTER, KEY, false);
        String v1 = writerOfRecord(memory());
        reboot("image v2");
        memory(v1).rerecord(recalled(memory(v1)));
        String v2 = writerAt(TpmDiskMemory.NEXT);
        reboot("image v2");
        RememberedDisk own = recalled(memory(v1));
        assertTrue(own.joinServiceRoleDigest().isEmpty());

        memory(v1).rerecord(own, java.util.Optional.of(ROLE_DIGEST));

        assertArrayEquals(ROLE_DIGEST, recalled(memory(v1)).joinServiceRoleDigest().orElseThrow());
        assertEquals(v2, writerAt(TpmDiskMemory.NEXT));
        assertEquals(2, swtpm.client().nv().read(TpmDiskMemory.NEXT)[0], "its own record, now version 2");
        assertEquals(v1, writerAt(TpmDiskMemory.INDEX), "the predecessor's is kept");
        reboot("image v1");
        assertTrue(recalled(memory()).isDisk(UUID), "rolled back, the predecessor's own record still unlocks");
    }

    @Test
    @DisplayName("a record that names a role key keeps it: a re-record that learned another key writes nothing")
    void versionTwoKeepsItsKey() throws Exception {
        byte[] other = dev.sextant.keys.role.JoinServiceRoleProof.digestOf(
                dev.sextant.keys.role.JoinServiceRoleKey.of(bytes("another master secret"), new byte[32]).publicKey());
        memory().remember(UUID, CLUSTER, KEY, false, java.util.Optional.of(ROLE_DIGEST));

        memory().rerecord(recalled(memory()), java.util.Optional.of(other));

        assertArrayEquals(ROLE_DIGEST, recalled(memory()).joinServiceRoleDigest().orElseThrow());
        assertFalse(defined(TpmDiskMemory.NEXT), "nothing was written");
    }

    private String writerOfRecord(TpmDiskMemory memory) {
        return HexFormat.of().formatHex(assertInstanceOf(Recall.Remembered.class, memory.recall()).disk().writerDigest());
    }

    /** The writer digest of the record at {@code handle}, read raw (no checks): which image wrote that slot. */
    private String writerAt(int handle) throws Exception {
        return HexFormat.of().formatHex(RememberedDisk.decode(swtpm.client().nv().read(handle)).writerDigest());
    }

    /** Defines the second handle under {@code writer}'s policy and writes {@code record} there, as the image whose PCRs those are. */
    private void recordAtNext(byte[] writer, RememberedDisk record) throws Exception {
        TpmClient tpm = swtpm.client();
        tpm.nv().defineSpace(TpmDiskMemory.NEXT, TpmDiskMemory.ATTRIBUTES, WritePolicy.authPolicy(writer), RememberedDisk.BYTES);
        int session = tpm.policy().startPolicySession();
        tpm.policy().pcr(session, WritePolicy.PCRS, writer);
        tpm.nv().writeUnderPolicy(TpmDiskMemory.NEXT, record.encode(), session);
    }

    private byte[] ownWriter() throws Exception {
        return WritePolicy.writerBeforeLock(swtpm.client().pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
    }

    private boolean defined(int handle) throws Exception {
        return swtpm.client().nv().findPublic(handle).isPresent();
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
    @DisplayName("a first membership that knows the cluster's join service role key is recorded as version 2, naming its digest")
    void recordsTheRoleKey() throws Exception {
        byte[] digest = dev.sextant.keys.role.JoinServiceRoleProof.digestOf(
                dev.sextant.keys.role.JoinServiceRoleKey.of(bytes("master secret"), new byte[32]).publicKey());
        memory().remember(UUID, CLUSTER, KEY, false, java.util.Optional.of(digest));
        RememberedDisk disk = assertInstanceOf(Recall.Remembered.class, memory().recall()).disk();
        assertArrayEquals(digest, disk.joinServiceRoleDigest().orElseThrow());
        assertTrue(disk.isDisk(UUID) && disk.isKey(KEY) && disk.isCluster(CLUSTER));
        assertEquals(2, swtpm.client().nv().read(TpmDiskMemory.INDEX)[0], "version 2 in the same index");
    }

    @Test
    @DisplayName("a record round-trips through its bytes; bytes of another size, version or role are refused")
    void encoding() throws Exception {
        RememberedDisk disk = RememberedDisk.of(UUID, CLUSTER, KEY, true, new byte[32]);
        assertTrue(RememberedDisk.decode(disk.encode()).sameAs(disk));
        byte[] bytes = disk.encode();
        assertThrows(RememberedDisk.RecordUnreadable.class, () -> RememberedDisk.decode(new byte[10]));
        bytes[0] = 3;
        assertThrows(RememberedDisk.RecordUnreadable.class, () -> RememberedDisk.decode(bytes));
        bytes[0] = 1;
        bytes[1] = 7;
        assertThrows(RememberedDisk.RecordUnreadable.class, () -> RememberedDisk.decode(bytes));
        assertFalse(disk.toString().contains(HexFormat.of().formatHex(KEY)));
        assertEquals(-1, disk.toString().indexOf("check"));
    }

    @Test
    @DisplayName("a record naming the join service role key is version 2, of the same size, and round-trips; one without is"
            + " byte for byte version 1")
    void encodingWithRole() throws Exception {
        RememberedDisk v1 = RememberedDisk.of(UUID, CLUSTER, KEY, false, new byte[32]);
        byte[] digest = new byte[RememberedDisk.ROLE_KEY_DIGEST_BYTES];
        java.util.Arrays.fill(digest, (byte) 0x5a);
        RememberedDisk v2 = v1.withJoinServiceRole(digest);
        assertEquals(1, v1.encode()[0]);
        assertEquals(2, v2.encode()[0]);
        assertEquals(RememberedDisk.BYTES, v2.encode().length);
        RememberedDisk back = RememberedDisk.decode(v2.encode());
        assertTrue(back.sameAs(v2));
        assertTrue(back.isDisk(UUID) && back.isKey(KEY) && back.isCluster(CLUSTER) && !back.controlPlane());
        assertArrayEquals(digest, back.joinServiceRoleDigest().orElseThrow());
        assertTrue(RememberedDisk.decode(v1.encode()).joinServiceRoleDigest().isEmpty());
        assertTrue(back.sameDiskAs(v1), "the role key digest is an addition, not another disk");
        assertArrayEquals(digest, back.rewrittenBy(new byte[32]).joinServiceRoleDigest().orElseThrow(), "kept on re-recording");
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
