package dev.sextant.nodeboot.rememberdisk;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The record in NV index {@link NvIndices#REMEMBERED_DISK}, written under {@link WritePolicy}.
 *
 * <p>The index: nameAlg SHA-256, attributes POLICYWRITE | WRITEALL | AUTHREAD | NO_DA (written only
 * through the policy, whole; read by anyone with the empty password; no dictionary-attack counting),
 * authPolicy = PolicyPCR(4, 9, 11, 12, 13, 15 as the genuine image before its lock).
 *
 * <p>What the host can do with owner authorization (which it has, as anyone who runs code on this
 * TPM does): delete the index, or define one of its own at the same handle with any attributes and
 * any policy, and write there what that policy lets it. So reading checks the public area, not
 * just the bytes: the attributes are exactly ours (a host index with AUTHWRITE or OWNERWRITE, which
 * it could write freely, is refused); the authPolicy is the PolicyPCR of the writer digest the
 * record itself names, and the name the TPM reports is the one of exactly that public area; and
 * the writer digest is this image's own (its PCRs 4–13 with PCR 15 = 0), or an image's it lists as
 * a predecessor. A host index under a PolicyPCR it could meet names a writer whose PCR 4 is the
 * host's own boot application: no image lists it. Deleting the index leaves nothing recorded: the
 * disk stays locked.
 *
 * <p>Two handles, {@link NvIndices#REMEMBERED_DISK} and {@link NvIndices#REMEMBERED_DISK_NEXT}, used as
 * A/B slots: a node that accepted a predecessor's record re-records it under its own policy
 * ({@link #rerecord}) in the slot the accepted record is not in, and keeps the accepted one, so a node
 * rolled back to its old boot disk after the new image booted once still finds a record its image
 * wrote (issue 39 §4); the next upgrade overwrites the older of the two. Each handle is checked as
 * above on its own; a record is accepted when one handle holds an accepted record, or both hold
 * accepted records of the same disk, cluster, role and key check: then the one naming the join service
 * role key is taken (a node that learned it never falls back to the weaker rejoin check while both are
 * there), then this image's own, else the one at {@link NvIndices#REMEMBERED_DISK} (either unlocks the same disk; the rule only makes
 * the choice, and so the slot a re-record overwrites, the same at every boot). Two accepted records that
 * disagree are refused: the node writes only one disk's record at a time, so the host (rolling back a
 * TPM's state, say) put them there, and the node cannot tell which is current. An index at the other
 * handle that is not accepted (the host's, or an image's this one does not list: after a rollback, the
 * newer image's record) gives nothing and is ignored beside an accepted record, with a warning; alone it
 * refuses, as at one handle.
 */
@Singleton
public final class TpmDiskMemory implements DiskMemory {
    private static final Logger LOG = LoggerFactory.getLogger(TpmDiskMemory.class);
    static final int INDEX = NvIndices.REMEMBERED_DISK;
    static final int NEXT = NvIndices.REMEMBERED_DISK_NEXT;
    private static final List<Integer> HANDLES = List.of(INDEX, NEXT);
    static final int ATTRIBUTES = NvPublic.POLICYWRITE | NvPublic.WRITEALL | NvPublic.AUTHREAD | NvPublic.NO_DA;

    private final TpmClient tpm;
    private final RememberedDiskSettings settings;

    public TpmDiskMemory(TpmClient tpm, RememberedDiskSettings settings) {
        this.tpm = tpm;
        this.settings = settings;
    }

    @Override
    public Recall recall() {
        try {
            return tpm.exclusive(this::recallNow);
        } catch (TpmException e) {
            return new Recall.Refused("reading the TPM's record of the state disk failed: " + e.getMessage());
        }
    }

    private Recall recallNow() throws TpmException {
        byte[] own = ownWriter();
        Map<Integer, Recall> at = recallEach(own);
        List<Integer> accepted = at.entrySet().stream().filter(e -> e.getValue() instanceof Recall.Remembered)
                .map(Map.Entry::getKey).toList();
        if (accepted.size() == 2) {
            RememberedDisk first = disk(at, INDEX);
            RememberedDisk second = disk(at, NEXT);
            if (!first.sameDiskAs(second)) {
                return new Recall.Refused(String.format("NV indices 0x%08x and 0x%08x hold two genuine records that"
                        + " disagree (%s; %s): this node writes one disk's record at a time, so it cannot tell which is"
                        + " current", INDEX, NEXT, first, second));
            }
            // Either opens the same disk. The one naming the role key first (a node that learned it must not
            // fall back to the weaker check), then this image's own, so every boot takes the same one.
            return new Recall.Remembered(rank(second, own) > rank(first, own) ? second : first);
        }
        if (accepted.size() == 1) {
            int handle = accepted.get(0);
            int other = other(handle);
            if (at.get(other) instanceof Recall.Refused refused) {
                LOG.warn("NV index 0x{} is ignored beside the record at 0x{}: {}", Integer.toHexString(other),
                        Integer.toHexString(handle), refused.why());
            }
            return at.get(handle);
        }
        List<String> refusals = new ArrayList<>();
        for (Recall recall : at.values()) {
            if (recall instanceof Recall.Refused refused) {
                refusals.add(refused.why());
            }
        }
        return refusals.isEmpty() ? at.get(INDEX) : new Recall.Refused(String.join("; ", refusals));
    }

    /** Of two agreeing records, the higher is taken: naming the role key counts most, then this image's writer. */
    private static int rank(RememberedDisk disk, byte[] own) {
        return (disk.joinServiceRoleDigest().isPresent() ? 2 : 0) + (disk.writtenBy(own) ? 1 : 0);
    }

    private Map<Integer, Recall> recallEach(byte[] own) throws TpmException {
        Map<Integer, Recall> at = new LinkedHashMap<>();
        for (int handle : HANDLES) {
            at.put(handle, recallAt(handle, own));
        }
        return at;
    }

    private static RememberedDisk disk(Map<Integer, Recall> at, int handle) {
        return ((Recall.Remembered) at.get(handle)).disk();
    }

    private static int other(int handle) {
        return handle == INDEX ? NEXT : INDEX;
    }

    /** What one handle holds, checked on its own. */
    private Recall recallAt(int handle, byte[] own) throws TpmException {
        Optional<NvPublic> defined = tpm.nv().findPublic(handle);
        if (defined.isEmpty()) {
            return new Recall.NothingRecorded(String.format("the TPM holds no record of a state disk (NV index 0x%08x"
                    + " is not defined)", handle));
        }
        NvPublic pub = defined.get();
        if (pub.attributes() == ATTRIBUTES && pub.nameAlg() == NvPublic.SHA256 && pub.dataSize() == RememberedDisk.BYTES) {
            return new Recall.NothingRecorded(String.format("NV index 0x%08x is defined but was never written", handle));
        }
        String problem = publicAreaProblem(handle, pub);
        if (problem != null) {
            return new Recall.Refused(problem);
        }
        RememberedDisk disk;
        try {
            disk = RememberedDisk.decode(tpm.nv().read(handle));
        } catch (RememberedDisk.RecordUnreadable e) {
            return new Recall.Refused(String.format("the TPM's record of the state disk at NV index 0x%08x is unreadable: %s",
                    handle, e.getMessage()));
        }
        byte[] policy = WritePolicy.authPolicy(disk.writerDigest());
        if (!MessageDigest.isEqual(pub.authPolicy(), policy)) {
            return new Recall.Refused(String.format("NV index 0x%08x was not defined by this node: its authPolicy is not"
                    + " the PCR policy its record names, so whoever defined it could write it", handle));
        }
        if (!MessageDigest.isEqual(pub.name(), NvPublic.nameOf(handle, ATTRIBUTES | NvPublic.WRITTEN, policy,
                RememberedDisk.BYTES))) {
            return new Recall.Refused(String.format("NV index 0x%08x: the name the TPM reports is not the name of the"
                    + " public area this node defines", handle));
        }
        String writer = HexFormat.of().formatHex(disk.writerDigest());
        String ownHex = HexFormat.of().formatHex(own);
        if (!writer.equals(ownHex) && settings.predecessorWriters().stream().noneMatch(writer::equalsIgnoreCase)) {
            return new Recall.Refused(String.format("the TPM's record of the state disk (NV index 0x%08x) was written under"
                    + " PCR values no image this one knows had before its node lock (writer %s; this image's is %s): a"
                    + " host's own index, or an image this one does not list in %s", handle, writer, ownHex,
                    RememberedDiskSettings.PREDECESSORS));
        }
        return new Recall.Remembered(disk);
    }

    /** Null when the public area is ours once written; else what differs. */
    private static String publicAreaProblem(int handle, NvPublic pub) {
        if (pub.nameAlg() != NvPublic.SHA256) {
            return String.format("NV index 0x%08x has nameAlg 0x%04x, not SHA-256: this node did not define it",
                    handle, pub.nameAlg());
        }
        if (pub.attributes() != (ATTRIBUTES | NvPublic.WRITTEN)) {
            return String.format("NV index 0x%08x has attributes 0x%08x, not 0x%08x (policy write only, written):"
                    + " this node did not define it", handle, pub.attributes(), ATTRIBUTES | NvPublic.WRITTEN);
        }
        if (pub.dataSize() != RememberedDisk.BYTES) {
            return String.format("NV index 0x%08x holds %d bytes, not %d: this node did not define it", handle,
                    pub.dataSize(), RememberedDisk.BYTES);
        }
        return null;
    }

    @Override
    public void remember(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane,
                         Optional<byte[]> roleKeyDigest) throws IOException {
        tpm.<Void, IOException>exclusive(() -> {
            try {
                rememberNow(diskUuid, clusterId, diskKey, controlPlane, roleKeyDigest);
            } catch (TpmException e) {
                throw new IOException("recording the state disk in the TPM: " + e.getMessage(), e);
            }
            return null;
        });
    }

    private void rememberNow(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane,
                             Optional<byte[]> roleKeyDigest) throws TpmException, IOException {
        byte[] writer = writerBeforeLock();
        byte[] policy = WritePolicy.authPolicy(writer);
        RememberedDisk first = RememberedDisk.of(diskUuid, clusterId, diskKey, controlPlane, writer);
        RememberedDisk disk = roleKeyDigest.map(first::withJoinServiceRole).orElse(first);
        // A record of an earlier membership at the second handle would disagree with this one: gone first.
        if (tpm.nv().findPublic(NEXT).isPresent()) {
            LOG.info("NV index 0x{} held an earlier record: it is removed", Integer.toHexString(NEXT));
            tpm.nv().undefineSpace(NEXT);
        }
        Optional<NvPublic> existing = tpm.nv().findPublic(INDEX);
        if (existing.isPresent() && !(existing.get().nameAlg() == NvPublic.SHA256
                && (existing.get().attributes() & ~NvPublic.WRITTEN) == ATTRIBUTES
                && existing.get().dataSize() == RememberedDisk.BYTES
                && MessageDigest.isEqual(existing.get().authPolicy(), policy))) {
            // Another image's record (a node that bootstraps afresh after an upgrade) or someone else's index.
            LOG.info("NV index 0x{} is not this image's record index: it is replaced", Integer.toHexString(INDEX));
            tpm.nv().undefineSpace(INDEX);
            existing = Optional.empty();
        }
        if (existing.isEmpty()) {
            tpm.nv().defineSpace(INDEX, ATTRIBUTES, policy, RememberedDisk.BYTES);
        }
        write(INDEX, disk);
        Recall back = recallNow();
        if (!(back instanceof Recall.Remembered r) || !r.disk().sameAs(disk)) {
            throw new IOException("the TPM's record of the state disk does not read back as written: " + back);
        }
        LOG.info("The TPM remembers state {} (writer {})", disk, HexFormat.of().formatHex(writer));
    }

    @Override
    public void rerecord(RememberedDisk remembered, Optional<byte[]> learnedRoleDigest) throws IOException {
        tpm.<Void, IOException>exclusive(() -> {
            try {
                rerecordNow(remembered, learnedRoleDigest);
            } catch (TpmException e) {
                throw new IOException("re-recording the state disk in the TPM: " + e.getMessage(), e);
            }
            return null;
        });
    }

    /**
     * The new record goes into the slot the accepted record is not in (replacing whatever is there: the
     * older image's record, the host's index, an unwritten one) and is read back; the accepted record is
     * kept. At every moment the TPM holds the accepted record, so a crash anywhere leaves a node that
     * unlocks at its next boot; and the kept record is what lets the predecessor image, if the node is
     * rolled back to it, unlock again. Nothing is written when the record this image would write is the
     * one this boot accepted.
     *
     * <p>A record this image wrote itself is re-recorded only to learn the role key (version 1 to 2).
     * Then the superseded record of version 1 is removed once the new one reads back, so that a host that
     * deletes the new index finds no record of this image's to fall back to the weaker check with. Only
     * when the other slot keeps a predecessor's record of the same disk (for a rollback) is the accepted
     * record overwritten in place instead: should that write not complete, the predecessor's record,
     * which this image accepts, still unlocks the node.
     */
    private void rerecordNow(RememberedDisk remembered, Optional<byte[]> learnedRoleDigest) throws TpmException, IOException {
        byte[] own = writerBeforeLock();
        RememberedDisk rewritten = remembered.rewrittenBy(own);
        RememberedDisk mine = learnedRoleDigest.map(rewritten::learningJoinServiceRole).orElse(rewritten);
        Map<Integer, Recall> at = recallEach(own);
        if (mine.sameAs(remembered)) {
            dropWeakerOwnRecord(remembered, own, at);
            return;
        }
        int keep = HANDLES.stream().filter(h -> at.get(h) instanceof Recall.Remembered r && r.disk().sameAs(remembered))
                .findFirst().orElseThrow(() -> new IOException("the TPM no longer holds the record of " + remembered
                        + " that this boot accepted: nothing is re-recorded"));
        boolean ownSuperseded = remembered.writtenBy(own);
        boolean predecessorKept = at.get(other(keep)) instanceof Recall.Remembered r && !r.disk().writtenBy(own)
                && r.disk().sameDiskAs(remembered);
        int target = ownSuperseded && predecessorKept ? keep : other(keep);
        if (target != keep) {
            if (tpm.nv().findPublic(target).isPresent()) {
                // The older of two genuine records, the host's index, or an unwritten one: the accepted record stays.
                tpm.nv().undefineSpace(target);
            }
            tpm.nv().defineSpace(target, ATTRIBUTES, WritePolicy.authPolicy(own), RememberedDisk.BYTES);
        }
        write(target, mine);
        Recall back = recallNow();
        if (!(back instanceof Recall.Remembered r) || !r.disk().sameAs(mine)) {
            if (target != keep) {
                // What does not read back as the node's record must not wait there for the accepted one to go.
                tpm.nv().undefineSpace(target);
            }
            throw new IOException(String.format("the re-recorded state disk does not read back from NV index 0x%08x"
                    + " (%s); the record at 0x%08x is kept", target, back, keep));
        }
        if (ownSuperseded && target != keep) {
            tpm.nv().undefineSpace(keep);
        }
        if (mine.joinServiceRoleDigest().isPresent() && remembered.joinServiceRoleDigest().isEmpty()) {
            LOG.info("The TPM's record of {} names the join service role key learned at this rejoin (digest {}…), at NV"
                    + " index 0x{}: from now on every rejoin demands its proof", remembered,
                    HexFormat.of().formatHex(mine.joinServiceRoleDigest().get(), 0, 6), Integer.toHexString(target));
        }
        if (!ownSuperseded) {
            LOG.info("The TPM's record of {} was written by writer {}: re-recorded at NV index 0x{} under this image's"
                    + " writer {}; the predecessor's at 0x{} is kept, so a rollback to it still unlocks", remembered,
                    HexFormat.of().formatHex(remembered.writerDigest()), Integer.toHexString(target),
                    HexFormat.of().formatHex(own), Integer.toHexString(keep));
        }
    }

    /**
     * A crash after the version-2 record read back and before the version-1 one was removed leaves both;
     * the version-1 record goes at the next re-record, as it would have then.
     */
    private void dropWeakerOwnRecord(RememberedDisk accepted, byte[] own, Map<Integer, Recall> at) throws TpmException {
        if (accepted.joinServiceRoleDigest().isEmpty()) {
            return;
        }
        for (int handle : HANDLES) {
            if (at.get(handle) instanceof Recall.Remembered r && r.disk().writtenBy(own)
                    && r.disk().joinServiceRoleDigest().isEmpty() && r.disk().sameDiskAs(accepted)) {
                tpm.nv().undefineSpace(handle);
                LOG.info("NV index 0x{} held this image's record of {} without the join service role key, left by an"
                        + " interrupted re-record: it is removed", Integer.toHexString(handle), accepted);
            }
        }
    }

    /** This image's writer digest now; refused once the node lock marked PCR 15 (the policy could not be met). */
    private byte[] writerBeforeLock() throws TpmException, IOException {
        SortedMap<Integer, byte[]> pcrs = tpm.pcr().read(TpmAlg.SHA256, WritePolicy.PCRS);
        if (!MessageDigest.isEqual(pcrs.get(WritePolicy.CLUSTER_PCR), new byte[32])) {
            throw new IOException("PCR 15 is already marked: only a node before its lock can record its state disk");
        }
        return WritePolicy.writerBeforeLock(pcrs);
    }

    private void write(int handle, RememberedDisk disk) throws TpmException {
        int session = tpm.policy().startPolicySession();
        try {
            tpm.policy().pcr(session, WritePolicy.PCRS, disk.writerDigest());
        } catch (TpmException e) {
            tpm.flushContext(session);
            throw e;
        }
        tpm.nv().writeUnderPolicy(handle, disk.encode(), session);
    }

    /** This image's writer digest: its PCRs 4, 9, 11, 12, 13 now, PCR 15 as before any lock. */
    private byte[] ownWriter() throws TpmException {
        return WritePolicy.writerBeforeLock(tpm.pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
    }
}
