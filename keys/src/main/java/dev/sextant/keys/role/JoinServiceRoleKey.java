package dev.sextant.keys.role;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.MemberKey;

/**
 * The key a control plane's join service proves its role with: Ed25519, its seed
 * {@link KeyDerivation#joinServiceRoleSeed()} of the master secret. Every control plane derives the
 * same key (they all hold the master secret), a worker cannot (it never receives the master secret),
 * and a control plane of another cluster derives another key. A node remembers the public key's
 * digest in its TPM record at first bootstrap ({@link JoinServiceRoleProof#digestOf}) and, on a
 * rejoin, takes its key only from a service that signs that handshake with this key. Holds a
 * private key: no toString with content.
 */
public final class JoinServiceRoleKey {
    private final MemberKey key;

    /** The role key of the master secret {@code derivation} was made from. */
    public JoinServiceRoleKey(KeyDerivation derivation) {
        this.key = new MemberKey(derivation.joinServiceRoleSeed());
    }

    /** The role key of the master secret {@code masterSecret} with its salt {@code masterSalt}. */
    public static JoinServiceRoleKey of(byte[] masterSecret, byte[] masterSalt) {
        return new JoinServiceRoleKey(new KeyDerivation(masterSecret, masterSalt));
    }

    /** The 32-byte Ed25519 public key. */
    public byte[] publicKey() {
        return key.publicKey();
    }

    /**
     * The proof for one aTLS handshake: this key's signature over the client's TLS random and SHA-256
     * of the SPKI of the certificate the service presents in it ({@link JoinServiceRoleProof#signedMessage}).
     */
    public JoinServiceRoleProof prove(byte[] clientRandom, byte[] spkiHash) {
        return new JoinServiceRoleProof(publicKey(), key.sign(JoinServiceRoleProof.signedMessage(clientRandom, spkiHash)));
    }

    @Override
    public String toString() {
        return "JoinServiceRoleKey[private key redacted]";
    }
}
