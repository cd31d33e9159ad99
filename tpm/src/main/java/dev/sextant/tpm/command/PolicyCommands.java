package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.PcrSelection;
import dev.sextant.attestation.tpmstructures.TpmAlg;

import java.util.SortedSet;

/**
 * Policy-session commands of a {@link TpmClient}: start a session, add PolicyPCR to it, read its
 * digest. Sessions are unbound and unsalted with no parameter encryption: Sextant uses them only to
 * prove a PCR state to the TPM (an NV write under a PolicyPCR authPolicy), never to carry a secret.
 */
public final class PolicyCommands {
    /** TPM_RH_NULL (Part 2, §7.4): no salt key, no bind entity. */
    private static final int RH_NULL = 0x40000007;
    /** TPM_SE (Part 2, §6.11). */
    private static final int SE_POLICY = 0x01;
    private static final int SE_TRIAL = 0x03;
    /** Part 3 §11.1: nonceCaller is at least 16 octets. */
    private static final int NONCE_BYTES = 16;

    private final TpmClient client;

    PolicyCommands(TpmClient client) {
        this.client = client;
    }

    /** A policy session (SHA-256) whose digest starts empty; flush it unless a command used it up. */
    public int startPolicySession() throws TpmException {
        return start(SE_POLICY);
    }

    /** A trial session: it only computes the digest a policy would have, and authorizes nothing. */
    public int startTrialSession() throws TpmException {
        return start(SE_TRIAL);
    }

    /**
     * TPM2_StartAuthSession (Part 3, §11.1): tpmKey and bind TPM_RH_NULL, a fresh nonceCaller, no
     * encryptedSalt, symmetric TPM_ALG_NULL, authHash SHA-256.
     */
    private int start(int type) throws TpmException {
        byte[] nonce = client.getRandom(NONCE_BYTES);
        Command c = Command.of(TpmCc.START_AUTH_SESSION).handle(RH_NULL).handle(RH_NULL);
        c.params().sized(nonce).sized(new byte[0]).u8(type).u16(TpmAlg.NULL).u16(TpmAlg.SHA256);
        return client.send(c, 1, (r, handles) -> {
            r.sized(64, "nonceTPM");
            return handles[0];
        });
    }

    /**
     * TPM2_PolicyPCR (Part 3, §23.7) over SHA-256 {@code pcrs}. With {@code pcrDigest} empty the TPM
     * takes the PCRs' current values; otherwise it first checks they hash to {@code pcrDigest}
     * (TPM_RC_VALUE when not), so the digest a caller computed is the one the policy holds.
     */
    public void pcr(int session, SortedSet<Integer> pcrs, byte[] pcrDigest) throws TpmException {
        Command c = Command.of(TpmCc.POLICY_PCR).handle(session);
        c.params().sized(pcrDigest);
        PcrSelection.of(TpmAlg.SHA256, pcrs).marshal(c.params());
        client.send(c, 0, r -> null);
    }

    /** TPM2_PolicyGetDigest (Part 3, §23.19): the session's policy digest so far. */
    public byte[] digest(int session) throws TpmException {
        Command c = Command.of(TpmCc.POLICY_GET_DIGEST).handle(session);
        return client.send(c, 0, r -> r.sized(64, "policyDigest"));
    }
}
