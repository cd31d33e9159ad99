package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.PcrSelection;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmWriter;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * The digest of a policy of one TPM2_PolicyPCR over SHA-256 PCRs, computed without a TPM, so a
 * reader can tell which PCR values an index's authPolicy demands (Part 3, §23.7):
 * {@code policyDigest = SHA-256(0^32 || TPM_CC_PolicyPCR || TPML_PCR_SELECTION || pcrDigest)}, with
 * {@code pcrDigest = SHA-256(the selected PCRs' values in ascending order)}. The selection is
 * marshalled as {@link PcrSelection} does and {@link PolicyCommands#pcr} sends it (sizeofSelect 3),
 * which the TPM hashes as received.
 */
public final class PcrPolicy {
    private PcrPolicy() {}

    /** SHA-256 over the values of the selected PCRs, ascending. */
    public static byte[] pcrDigest(SortedMap<Integer, byte[]> values) {
        MessageDigest sha = sha256();
        values.values().forEach(sha::update);
        return sha.digest();
    }

    /** The policy digest of PolicyPCR({@code pcrs}, {@code pcrDigest}) in a fresh session. */
    public static byte[] policyDigest(SortedSet<Integer> pcrs, byte[] pcrDigest) {
        MessageDigest sha = sha256();
        sha.update(new byte[32]);
        sha.update(new TpmWriter().u32(TpmCc.POLICY_PCR.code()).toByteArray());
        sha.update(PcrSelection.encode(TpmAlg.SHA256, pcrs));
        sha.update(pcrDigest);
        return sha.digest();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
