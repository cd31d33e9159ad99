package dev.sextant.nodeboot.rememberdisk;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpm.command.TpmRc;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.HexFormat;
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
 */
@Singleton
public final class TpmDiskMemory implements DiskMemory {
    private static final Logger LOG = LoggerFactory.getLogger(TpmDiskMemory.class);
    static final int INDEX = NvIndices.REMEMBERED_DISK;
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
        Optional<NvPublic> defined = readPublic();
        if (defined.isEmpty()) {
            return new Recall.NothingRecorded(String.format("the TPM holds no record of a state disk (NV index 0x%08x"
                    + " is not defined)", INDEX));
        }
        NvPublic pub = defined.get();
        if (pub.attributes() == ATTRIBUTES && pub.nameAlg() == NvPublic.SHA256 && pub.dataSize() == RememberedDisk.BYTES) {
            return new Recall.NothingRecorded(String.format("NV index 0x%08x is defined but was never written", INDEX));
        }
        String problem = publicAreaProblem(pub);
        if (problem != null) {
            return new Recall.Refused(problem);
        }
        RememberedDisk disk;
        try {
            disk = RememberedDisk.decode(tpm.nv().read(INDEX));
        } catch (RememberedDisk.RecordUnreadable e) {
            return new Recall.Refused("the TPM's record of the state disk is unreadable: " + e.getMessage());
        }
        byte[] policy = WritePolicy.authPolicy(disk.writerDigest());
        if (!MessageDigest.isEqual(pub.authPolicy(), policy)) {
            return new Recall.Refused(String.format("NV index 0x%08x was not defined by this node: its authPolicy is not"
                    + " the PCR policy its record names, so whoever defined it could write it", INDEX));
        }
        if (!MessageDigest.isEqual(pub.name(), NvPublic.nameOf(INDEX, ATTRIBUTES | NvPublic.WRITTEN, policy,
                RememberedDisk.BYTES))) {
            return new Recall.Refused(String.format("NV index 0x%08x: the name the TPM reports is not the name of the"
                    + " public area this node defines", INDEX));
        }
        String writer = HexFormat.of().formatHex(disk.writerDigest());
        String own = HexFormat.of().formatHex(ownWriter());
        if (!writer.equals(own) && settings.predecessorWriters().stream().noneMatch(writer::equalsIgnoreCase)) {
            return new Recall.Refused("the TPM's record of the state disk was written under PCR values no image this one"
                    + " knows had before its node lock (writer " + writer + "; this image's is " + own + "): a host's"
                    + " own index, or an image this one does not list in " + RememberedDiskSettings.PREDECESSORS);
        }
        return new Recall.Remembered(disk);
    }

    /** Null when the public area is ours once written; else what differs. */
    private static String publicAreaProblem(NvPublic pub) {
        if (pub.nameAlg() != NvPublic.SHA256) {
            return String.format("NV index 0x%08x has nameAlg 0x%04x, not SHA-256: this node did not define it",
                    INDEX, pub.nameAlg());
        }
        if (pub.attributes() != (ATTRIBUTES | NvPublic.WRITTEN)) {
            return String.format("NV index 0x%08x has attributes 0x%08x, not 0x%08x (policy write only, written):"
                    + " this node did not define it", INDEX, pub.attributes(), ATTRIBUTES | NvPublic.WRITTEN);
        }
        if (pub.dataSize() != RememberedDisk.BYTES) {
            return String.format("NV index 0x%08x holds %d bytes, not %d: this node did not define it", INDEX,
                    pub.dataSize(), RememberedDisk.BYTES);
        }
        return null;
    }

    @Override
    public void remember(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane) throws IOException {
        tpm.<Void, IOException>exclusive(() -> {
            try {
                rememberNow(diskUuid, clusterId, diskKey, controlPlane);
            } catch (TpmException e) {
                throw new IOException("recording the state disk in the TPM: " + e.getMessage(), e);
            }
            return null;
        });
    }

    private void rememberNow(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane)
            throws TpmException, IOException {
        SortedMap<Integer, byte[]> pcrs = tpm.pcr().read(TpmAlg.SHA256, WritePolicy.PCRS);
        if (!MessageDigest.isEqual(pcrs.get(WritePolicy.CLUSTER_PCR), new byte[32])) {
            throw new IOException("PCR 15 is already marked: only a node before its lock can record its state disk");
        }
        byte[] writer = WritePolicy.writerBeforeLock(pcrs);
        byte[] policy = WritePolicy.authPolicy(writer);
        RememberedDisk disk = RememberedDisk.of(diskUuid, clusterId, diskKey, controlPlane, writer);
        Optional<NvPublic> existing = readPublic();
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
        int session = tpm.policy().startPolicySession();
        try {
            tpm.policy().pcr(session, WritePolicy.PCRS, writer);
        } catch (TpmException e) {
            tpm.flushContext(session);
            throw e;
        }
        tpm.nv().writeUnderPolicy(INDEX, disk.encode(), session);
        Recall back = recallNow();
        if (!(back instanceof Recall.Remembered r) || !r.disk().sameAs(disk)) {
            throw new IOException("the TPM's record of the state disk does not read back as written: " + back);
        }
        LOG.info("The TPM remembers state {} (writer {})", disk, HexFormat.of().formatHex(writer));
    }

    /** This image's writer digest: its PCRs 4, 9, 11, 12, 13 now, PCR 15 as before any lock. */
    private byte[] ownWriter() throws TpmException {
        return WritePolicy.writerBeforeLock(tpm.pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
    }

    private Optional<NvPublic> readPublic() throws TpmException {
        try {
            return Optional.of(tpm.nv().readPublic(INDEX));
        } catch (TpmException e) {
            if (e.is(TpmRc.HANDLE)) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
