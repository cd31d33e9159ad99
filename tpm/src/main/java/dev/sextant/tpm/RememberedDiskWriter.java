package dev.sextant.tpm;

import dev.sextant.tpm.command.PcrPolicy;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which image may write the state-disk record ({@link NvIndices#REMEMBERED_DISK}): the writer digest,
 * SHA-256 over SHA-256 PCRs 4, 9, 11, 12, 13 and 15 in that order with PCR 15 taken as zero (the image
 * booted, before its node lock), and the authPolicy of an index only that image can write, a
 * TPM2_PolicyPCR over those PCRs. One implementation for both sides that need it: the node computes
 * it from the PCRs it reads (node-boot's WritePolicy), and the image builder from an earlier image's
 * predicted PCRs, so that an upgrade image can list its predecessors' writers
 * ({@code sextant image build --upgrades-from}). A digest computed differently on either side would
 * leave every upgraded node locked.
 */
public final class RememberedDiskWriter {
    /** The PCRs the policy binds; 15 last, the one that must be zero. */
    public static final SortedSet<Integer> PCRS = Collections.unmodifiableSortedSet(new TreeSet<>(List.of(4, 9, 11, 12, 13, 15)));
    /** The PCR the node lock marks: zero in every writer digest. */
    public static final int CLUSTER_PCR = 15;

    private RememberedDiskWriter() {}

    /**
     * The writer digest of an image whose PCRs are {@code values} (at least 4, 9, 11, 12 and 13; PCR 15,
     * if present, is ignored and taken as zero: as they are before a node lock).
     */
    public static byte[] digestBeforeLock(Map<Integer, byte[]> values) {
        SortedMap<Integer, byte[]> selected = new TreeMap<>();
        for (int pcr : PCRS) {
            byte[] value = pcr == CLUSTER_PCR ? new byte[32] : values.get(pcr);
            if (value == null) {
                throw new IllegalArgumentException("PCR " + pcr + " is missing: the writer digest needs PCRs 4, 9, 11, 12 and 13");
            }
            if (value.length != 32) {
                throw new IllegalArgumentException("PCR " + pcr + " is " + value.length + " bytes, not a SHA-256 value");
            }
            selected.put(pcr, value);
        }
        return PcrPolicy.pcrDigest(selected);
    }

    /** The authPolicy of an index only the image of {@code writerDigest} can write, before its lock. */
    public static byte[] authPolicy(byte[] writerDigest) {
        return PcrPolicy.policyDigest(PCRS, writerDigest);
    }
}
