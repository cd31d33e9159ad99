package dev.sextant.nodeboot.jointrust;

import dev.sextant.atls.HandshakeProofCheck;
import dev.sextant.keys.role.JoinServiceRoleProof;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * On the rejoin of a node whose TPM record names no join service role key (version 1): demands
 * nothing of the service's role proof, as before, but notes the role key a service proved for the
 * handshake, so that a rejoin whose disk key then opens the disk can have the record name it
 * (version 2) and every later rejoin demand it. One witness serves one call: it gives a key only when
 * every handshake of that call proved the same key for itself (a call that reconnected to a service
 * proving nothing, or another key, gives none), so the key is the one of the service that handed over
 * the disk key.
 */
public final class RoleKeyWitness implements HandshakeProofCheck {
    private static final Logger LOG = LoggerFactory.getLogger(RoleKeyWitness.class);

    private final List<byte[]> proven = new ArrayList<>();
    private boolean unproven;

    @Override
    public synchronized void check(Optional<byte[]> proof, byte[] ownRandom, byte[] spkiHash) {
        if (proof.isEmpty()) {
            unproven = true;
            return;
        }
        JoinServiceRoleProof decoded;
        try {
            decoded = JoinServiceRoleProof.decode(proof.get());
        } catch (IllegalArgumentException e) {
            LOG.warn("The join service's role proof does not parse ({}): no role key is learned from this rejoin", e.getMessage());
            unproven = true;
            return;
        }
        if (!decoded.signedFor(ownRandom, spkiHash)) {
            LOG.warn("The join service's role proof was not made for this handshake: no role key is learned from this rejoin");
            unproven = true;
            return;
        }
        proven.add(decoded.publicKey());
    }

    /** The role public key every handshake of the call proved; empty when one proved none, or they differ. */
    public synchronized Optional<byte[]> provenKey() {
        if (unproven || proven.isEmpty() || proven.stream().anyMatch(k -> !Arrays.equals(k, proven.get(0)))) {
            return Optional.empty();
        }
        return Optional.of(proven.get(0).clone());
    }
}
