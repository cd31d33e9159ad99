package dev.sextant.keys.member;

import java.security.SecureRandom;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * An Ed25519 key (RFC 8032): a member's discovery signing key, and the discovery CA's. Ed25519
 * because its keys and signatures are fixed-size raw bytes (32 and 64), so nothing about a key's
 * encoding needs parsing, and signing is deterministic (no nonce to get wrong). Holds a private
 * key: no toString with content.
 */
public final class MemberKey {
    public static final int PUBLIC_KEY_BYTES = Ed25519PublicKeyParameters.KEY_SIZE;
    public static final int PRIVATE_KEY_BYTES = Ed25519PrivateKeyParameters.KEY_SIZE;
    public static final int SIGNATURE_BYTES = Ed25519PrivateKeyParameters.SIGNATURE_SIZE;

    private final Ed25519PrivateKeyParameters key;

    /** The key whose 32-byte RFC 8032 seed is {@code privateKey}. */
    public MemberKey(byte[] privateKey) {
        if (privateKey.length != PRIVATE_KEY_BYTES) {
            throw new IllegalArgumentException("an Ed25519 private key is " + PRIVATE_KEY_BYTES + " bytes, got "
                    + privateKey.length);
        }
        this.key = new Ed25519PrivateKeyParameters(privateKey, 0);
    }

    public static MemberKey generate(SecureRandom random) {
        return new MemberKey(new Ed25519PrivateKeyParameters(random).getEncoded());
    }

    /** The 32-byte seed, for storing on the encrypted state disk. */
    public byte[] privateKey() {
        return key.getEncoded();
    }

    public byte[] publicKey() {
        return key.generatePublicKey().getEncoded();
    }

    public byte[] sign(byte[] message) {
        Ed25519Signer signer = new Ed25519Signer();
        signer.init(true, key);
        signer.update(message, 0, message.length);
        return signer.generateSignature();
    }

    /** True when {@code signature} is {@code publicKey}'s over {@code message}; false for any malformed input. */
    public static boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey.length != PUBLIC_KEY_BYTES || signature.length != SIGNATURE_BYTES) {
            return false;
        }
        Ed25519Signer verifier = new Ed25519Signer();
        try {
            verifier.init(false, new Ed25519PublicKeyParameters(publicKey, 0));
        } catch (IllegalArgumentException e) {
            return false;
        }
        verifier.update(message, 0, message.length);
        return verifier.verifySignature(signature);
    }

    /**
     * {@code publicKey} if it is a usable Ed25519 public key (32 bytes encoding a point of the
     * curve); otherwise IllegalArgumentException saying what is wrong.
     */
    public static byte[] checkPublicKey(byte[] publicKey) {
        if (publicKey.length != PUBLIC_KEY_BYTES) {
            throw new IllegalArgumentException("an Ed25519 public key is " + PUBLIC_KEY_BYTES + " bytes, got "
                    + publicKey.length);
        }
        try {
            new Ed25519PublicKeyParameters(publicKey, 0);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the " + PUBLIC_KEY_BYTES + " bytes are not an Ed25519 public key");
        }
        if (org.bouncycastle.math.ec.rfc8032.Ed25519.validatePublicKeyFull(publicKey, 0)) {
            return publicKey.clone();
        }
        throw new IllegalArgumentException("the " + PUBLIC_KEY_BYTES + " bytes are not an Ed25519 public key"
                + " (not a point of prime order on the curve)");
    }

    @Override
    public String toString() {
        return "MemberKey[private key redacted]";
    }
}
