package dev.sextant.keys.operator;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.MemberKey;

/**
 * The operator's identity towards the cluster's services: an Ed25519 key whose seed is
 * {@link KeyDerivation#operatorCredentialSeed()} of the master secret, so the operator needs no
 * key beside the master secret file, and the secret itself never leaves their machine: only
 * proofs made with this key do. Holds a private key: no toString with content.
 */
public final class OperatorCredential {
    private final MemberKey key;

    /** The credential of the master secret {@code derivation} was made from. */
    public OperatorCredential(KeyDerivation derivation) {
        this.key = new MemberKey(derivation.operatorCredentialSeed());
    }

    /** The credential of the master secret {@code masterSecret} with its salt {@code masterSalt}. */
    public static OperatorCredential of(byte[] masterSecret, byte[] masterSalt) {
        return new OperatorCredential(new KeyDerivation(masterSecret, masterSalt));
    }

    /** What a service checks proofs with ({@link OperatorVerifier}); derived the same way where the master secret is. */
    public byte[] publicKey() {
        return key.publicKey();
    }

    /**
     * The proof for one call: the signature over {@link OperatorProof#signedMessage} of the gRPC
     * method, the request's bytes (without the proof) and this connection's client TLS random.
     */
    public OperatorProof prove(String method, byte[] request, byte[] clientRandom) {
        return new OperatorProof(key.sign(OperatorProof.signedMessage(method, request, clientRandom)));
    }

    @Override
    public String toString() {
        return "OperatorCredential[private key redacted]";
    }
}
