package dev.sextant.nodeboot.rememberdisk;

import dev.sextant.tpm.RememberedDiskWriter;

import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Who may write the record: a TPM2_PolicyPCR over SHA-256 PCRs 4, 9, 11, 12, 13 and 15, with the
 * values of the genuine image and PCR 15 = 0, i.e. this image booted, before its node lock.
 * <ul>
 *   <li>PCR 4 is what the host cannot fake: firmware extends it with the Authenticode hash of every
 *       boot application before that application runs, so an image of the host's own never reaches
 *       the genuine value (PCR 11, by contrast, is extended by the UKI's stub, and a boot path
 *       without that stub could extend it to any value). PCRs 9, 11, 12 and 13 are the rest of the
 *       image identity every verifier in Sextant checks (kernel, UKI sections with the dm-verity
 *       root hash, command line, extensions).</li>
 *   <li>PCR 15 = 0: the genuine image writes only between taking the node lock and marking PCR 15,
 *       at a first membership (or when it re-records a predecessor's record, before its lock).
 *       After the mark nothing in that boot can write, whatever the host feeds the node later.</li>
 * </ul>
 * The writer digest is SHA-256 over those six values in order; the authPolicy is that PolicyPCR's
 * digest. Both are public and computed without a TPM, by {@link RememberedDiskWriter}, which the
 * image builder uses too: an upgrade image lists its predecessors' writer digests computed from
 * their predicted PCRs, and they must equal what a node of the predecessor computed here.
 */
public final class WritePolicy {
    /** The PCRs the policy binds; 15 last, the one that must be zero. */
    public static final SortedSet<Integer> PCRS = RememberedDiskWriter.PCRS;
    static final int CLUSTER_PCR = RememberedDiskWriter.CLUSTER_PCR;

    private WritePolicy() {}

    /** The writer digest of these PCR values as they would be before a node lock: PCR 15 taken as zero. */
    public static byte[] writerBeforeLock(SortedMap<Integer, byte[]> current) {
        return RememberedDiskWriter.digestBeforeLock(current);
    }

    /** The authPolicy of an index written under {@code writerDigest}. */
    public static byte[] authPolicy(byte[] writerDigest) {
        return RememberedDiskWriter.authPolicy(writerDigest);
    }
}
