package dev.sextant.joinapi.identity;

import dev.sextant.atls.HandshakeProver;
import dev.sextant.keys.role.JoinServiceRoleKey;

/**
 * Signs every handshake of this control plane's join service with the cluster's join service role
 * key, over the client's ClientHello.random and the minted certificate's SPKI digest: a rejoining
 * node whose TPM record names that key takes its disk key only from a service that does
 * (docs/security.md, "Rejoin knows its cluster"). One Ed25519 signature per handshake.
 */
final class JoinServiceRoleProver implements HandshakeProver {
    private final JoinServiceRoleKey key;

    JoinServiceRoleProver(JoinServiceRoleKey key) {
        this.key = key;
    }

    @Override
    public byte[] prove(byte[] peerRandom, byte[] spkiHash) {
        return key.prove(peerRandom, spkiHash).encode();
    }
}
