package dev.sextant.nodeboot.jointrust;

import dev.sextant.atls.HandshakeProofCheck;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.keys.role.JoinServiceRoleProof;

import java.util.Optional;

/**
 * A rejoining node's demand that the join service prove, in this handshake, a control-plane role of
 * the node's cluster: its aTLS certificate carries a {@link JoinServiceRoleProof} whose public key is
 * the one the node's TPM record names (by digest) and whose signature covers the ClientHello.random
 * the node chose for this handshake and the SPKI of the certificate that completes it. The role key
 * derives from the master secret: every control plane of the cluster has it, a worker of the same
 * cluster (whose PCR 15 carries the same mark) does not, nor does a control plane of another cluster.
 * A refusal fails the handshake before the node sends anything.
 */
public final class JoinServiceRoleCheck implements HandshakeProofCheck {
    private final byte[] roleKeyDigest;

    /** @param roleKeyDigest what the node's record holds of the role key: {@link JoinServiceRoleProof#digestOf} */
    public JoinServiceRoleCheck(byte[] roleKeyDigest) {
        if (roleKeyDigest.length != JoinServiceRoleProof.DIGEST_BYTES) {
            throw new IllegalArgumentException("a role key digest is " + JoinServiceRoleProof.DIGEST_BYTES + " bytes, got "
                    + roleKeyDigest.length);
        }
        this.roleKeyDigest = roleKeyDigest.clone();
    }

    @Override
    public void check(Optional<byte[]> proof, byte[] ownRandom, byte[] spkiHash) throws AttestationRejected {
        if (proof.isEmpty()) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the join service proves no control-plane role: its aTLS"
                    + " certificate carries no role proof (a worker, or a join service without the master secret)");
        }
        JoinServiceRoleProof decoded;
        try {
            decoded = JoinServiceRoleProof.decode(proof.get());
        } catch (IllegalArgumentException e) {
            throw new AttestationRejected(Reason.MALFORMED, "the join service's role proof does not parse: " + e.getMessage());
        }
        if (!decoded.isKey(roleKeyDigest)) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the join service's role key is not the one this node's TPM"
                    + " remembers for its cluster: it is not a control plane of this cluster");
        }
        if (!decoded.signedFor(ownRandom, spkiHash)) {
            throw new AttestationRejected(Reason.KEY_BINDING, "the join service's role proof was not made for this handshake"
                    + " (another client random or another certificate): a replayed or relayed proof");
        }
    }
}
