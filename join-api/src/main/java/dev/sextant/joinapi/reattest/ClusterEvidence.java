package dev.sextant.joinapi.reattest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.AttestationDocument;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a member of this cluster must prove, as a join checks it, except PCR 15: one of the images the
 * set in force admits (a retired one is {@code IMAGE_RETIRED} naming it), an AK that chains to the EK CA,
 * and PCR 15 equal to this cluster's mark, SHA-256(0^32 ‖ SHA-256(cluster ID)), the value the node lock's
 * TPM2_PCR_Event leaves (a joining node shows 0 there; a member shows its cluster). The set is read from
 * the join service's own set in force at each check, so a new set applies from the next round.
 */
public final class ClusterEvidence {
    static final int CLUSTER_ID_PCR = 15;

    private final Supplier<MeasurementSet> setInForce;
    private final AkTrust akTrust;
    private final Ecdsa ecdsa;
    private final byte[] mark;
    private MeasurementSet cachedSet; // guarded by this: the verifiers keep their AK chain caches while the set stands
    private DocumentVerifier cachedVerifier;
    private DocumentVerifier cachedBeforeLock;

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

    /** The policy's verifier, for the aTLS handshake's own check of the node (the same checks as a document's). */
    synchronized AttestationVerifier verifier() {
        MeasurementSet set = setInForce.get();
        if (set != cachedSet) {
            cachedVerifier = new DocumentVerifier(new VerifierPolicy(set.enforcing(CLUSTER_ID_PCR, mark), akTrust), ecdsa);
            cachedBeforeLock = new DocumentVerifier(new VerifierPolicy(set.enforcing(CLUSTER_ID_PCR, new byte[32]), akTrust), ecdsa);
            cachedSet = set;
        }
        return cachedVerifier;
    }

    private synchronized DocumentVerifier beforeLock() {
        verifier();
        return cachedBeforeLock;
    }

    /** Checks a document against the policy; the outcome says whose it was where that is known. */
    Evidence check(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) {
        try {
            AttestedState state = verifier().verify(document, purpose, nonce, userData);
            return verified(state);
        } catch (AttestationRejected rejected) {
            return judged(rejected, document, purpose, nonce, userData);
        }
    }

    /** What a refusal of {@code document} means for the node (in the handshake or in the answer). */
    Evidence.Rejected judged(AttestationRejected rejected, byte[] document, Purpose purpose, byte[] nonce, byte[] userData) {
        if (rejected.reason() == Reason.PCR_MISMATCH && rebooting(document, purpose, nonce, userData)) {
            // A member that rebooted answers before it rejoined and locked: PCR 15 is still zero. That is a
            // round it missed, not failed evidence; its rejoin is checked by the join service as any is.
            return new Evidence.Rejected(new AttestationRejected(Reason.PCR_MISMATCH,
                    "PCR 15 is zero: the node rebooted and has not rejoined yet"), Optional.empty());
        }
        return rejected(rejected, document);
    }

    /** True when the document passes everything but PCR 15, which is zero: a node of an admitted image before its lock. */
    private boolean rebooting(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) {
        try {
            beforeLock().verify(document, purpose, nonce, userData);
            return true;
        } catch (AttestationRejected e) {
            return false;
        }
    }

    static Evidence.Verified verified(AttestedState state) {
        return new Evidence.Verified(HexFormat.of().formatHex(state.akName()), state.imageVersion());
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
