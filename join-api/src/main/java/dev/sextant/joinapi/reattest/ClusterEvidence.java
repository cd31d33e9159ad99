package dev.sextant.joinapi.reattest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.policy.ImageMatch;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.AttestationDocument;
import com.google.protobuf.InvalidProtocolBufferException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a member of this cluster must prove, as a join checks it, except PCR 15: one of the images the
 * set in force admits (a retired one is {@code IMAGE_RETIRED} naming it), an AK that chains to the EK CA,
 * and PCR 15 equal to this cluster's mark, SHA-256(0^32 ‖ SHA-256(cluster ID)), the value the node lock's
 * TPM2_PCR_Event leaves (a joining node shows 0 there; a member shows its cluster). The set is read from
 * the join service's own set in force at each check, so a new set applies from the next round.
 *
 * <p>A document is verified once, by a verifier of the set with PCR 15 left out (its AK chain, its
 * signature, the nonce, the event log, the image); PCR 15 is then compared with the mark over the PCRs
 * that verification established. Only when it differs are the same PCRs compared, in memory, with the set
 * as the mark and as zero make it: that names the refusal exactly as a verifier enforcing the mark would,
 * and tells a member that rebooted and has not rejoined (zero there) from a changed one.
 */
public final class ClusterEvidence {
    static final int CLUSTER_ID_PCR = 15;
    /** PCR 15 from reset: a node of an admitted image before its node lock. */
    private static final byte[] BEFORE_LOCK = new byte[32];

    private final Supplier<MeasurementSet> setInForce;
    private final AkTrust akTrust;
    private final Ecdsa ecdsa;
    private final byte[] mark;
    private Policy cached; // guarded by this: the verifier keeps its AK chain cache while the set stands

    /** What the set in force makes of PCR 15: the verifier without it, and the set with each value PCR 15 may show. */
    private record Policy(MeasurementSet set, DocumentVerifier withoutPcr15, MeasurementSet marked, MeasurementSet beforeLock) {
    }

    /**
     * One document checked. {@code evidence}: what it means for the node; {@code state}: what it proved when
     * it passed every check, PCR 15 included; {@code refusal}: otherwise, the refusal of a verifier enforcing
     * this cluster's mark (the reason and the sentence an aTLS handshake fails with).
     */
    record Checked(Evidence evidence, Optional<AttestedState> state, Optional<AttestationRejected> refusal) {
        static Checked passed(AttestedState state) {
            return new Checked(new Evidence.Verified(HexFormat.of().formatHex(state.akName()), state.imageVersion()),
                    Optional.of(state), Optional.empty());
        }

        static Checked refused(Evidence.Rejected evidence, AttestationRejected refusal) {
            return new Checked(evidence, Optional.empty(), Optional.of(refusal));
        }
    }

    public ClusterEvidence(Supplier<MeasurementSet> setInForce, AkTrust akTrust, Ecdsa ecdsa, byte[] clusterId) {
        this.setInForce = setInForce;
        this.akTrust = akTrust;
        this.ecdsa = ecdsa;
        this.mark = markedPcr15(clusterId);
    }

    /** PCR 15 after TPM2_PCR_Event(15, cluster ID) from reset: the TPM hashes the event data itself. */
    static byte[] markedPcr15(byte[] clusterId) {
        return Sha256.of(new byte[32], Sha256.of(clusterId));
    }

    private synchronized Policy policy() {
        MeasurementSet set = setInForce.get();
        if (cached == null || cached.set() != set) {
            cached = new Policy(set, new DocumentVerifier(new VerifierPolicy(set.ignoring(CLUSTER_ID_PCR), akTrust), ecdsa),
                    set.enforcing(CLUSTER_ID_PCR, mark), set.enforcing(CLUSTER_ID_PCR, BEFORE_LOCK));
        }
        return cached;
    }

    /** Checks a document against the policy; the outcome says whose it was where that is known. */
    Evidence check(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) {
        return checked(document, purpose, nonce, userData).evidence();
    }

    /** Checks a document against the policy, verifying it once (in an answer, or in the aTLS handshake). */
    Checked checked(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) {
        Policy policy = policy();
        AttestedState state;
        try {
            state = policy.withoutPcr15().verify(document, purpose, nonce, userData);
        } catch (AttestationRejected rejected) {
            return Checked.refused(rejected(rejected, document), rejected);
        }
        byte[] pcr15 = state.pcrs().get(CLUSTER_ID_PCR);
        if (pcr15 != null && MessageDigest.isEqual(pcr15, mark)) {
            return Checked.passed(state);
        }
        AttestationRejected refusal = refusal(policy.marked().match(state.pcrs()));
        // Signed by this AK over this nonce, its chain checked: the refusal has a signer.
        Optional<String> signer = Optional.of(HexFormat.of().formatHex(state.akName()));
        if (refusal.reason() == Reason.PCR_MISMATCH && policy.beforeLock().match(state.pcrs()) instanceof ImageMatch.Admitted) {
            // A member that rebooted answers before it rejoined and locked: PCR 15 is still zero. That is a
            // round it missed, not failed evidence; its rejoin is checked by the join service as any is.
            return Checked.refused(new Evidence.Rejected(new AttestationRejected(Reason.PCR_MISMATCH,
                    "PCR 15 is zero: the node rebooted and has not rejoined yet"), Optional.empty()), refusal);
        }
        return Checked.refused(new Evidence.Rejected(refusal, signer), refusal);
    }

    /**
     * What a verifier enforcing the mark refuses PCRs with that passed everything but PCR 15: a retired image
     * (known by PCR 4, 9 and 11 whatever PCR 15 says) or, per admitted image, what differs.
     */
    private static AttestationRejected refusal(ImageMatch marked) {
        if (marked instanceof ImageMatch.Retired retired) {
            return new AttestationRejected(Reason.IMAGE_RETIRED, retired.sentence());
        }
        if (marked instanceof ImageMatch.Mismatch mismatch) {
            return new AttestationRejected(Reason.PCR_MISMATCH, mismatch.sentence());
        }
        // Admitted cannot be: the marked set enforces the mark, which these PCRs do not show. Refused all the same.
        return new AttestationRejected(Reason.PCR_MISMATCH, "PCR " + CLUSTER_ID_PCR + " is not this cluster's mark");
    }

    /**
     * A refusal with its signer when the verifier refused only after checking the AK's chain, the quote's
     * signature with that AK and the nonce (DocumentVerifier's order: measurements come last). Before
     * that, nothing ties the document to any TPM, so it has no signer.
     */
    static Evidence.Rejected rejected(AttestationRejected rejected, byte[] document) {
        if (rejected.reason() != Reason.PCR_MISMATCH && rejected.reason() != Reason.IMAGE_RETIRED) {
            return new Evidence.Rejected(rejected, Optional.empty());
        }
        return new Evidence.Rejected(rejected, signer(document));
    }

    /** The AK name (hex) of a document the verifier already parsed and checked the signature of. */
    private static Optional<String> signer(byte[] document) {
        try {
            TpmtPublic ak = TpmtPublic.parse(AttestationDocument.parseFrom(document).getAkPublic().toByteArray());
            return Optional.of(HexFormat.of().formatHex(ak.name()));
        } catch (InvalidProtocolBufferException | TpmFormatException e) {
            return Optional.empty(); // cannot happen after the verifier parsed it; no signer then
        }
    }
}
