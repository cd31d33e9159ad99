package dev.sextant.attestation.ecdsa;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.PrivateKey;

/**
 * The elliptic-curve signatures of attested TLS: the fresh P-256 key and certificate signature each
 * handshake mints, and the two verifications each side makes (the peer's certificate self-signature,
 * its quote's signature). Two implementations, because the JVMs that use them want different things:
 * {@link BouncyCastleEcdsa} costs nothing at start-up (nodes, the command line, the local tools), and
 * {@code NativeEcdsa} (module ecdsa-native) costs a native library's load and self-tests once and then
 * a fraction of the CPU per operation (the join service, which verifies one handshake after another).
 * Both run through the same rejection matrices.
 */
public interface Ecdsa {
    /** A fresh key pair on P-256 (secp256r1). */
    KeyPair newP256KeyPair() throws GeneralSecurityException;

    /** ECDSA with SHA-256 over {@code data} with a key from {@link #newP256KeyPair}: the DER Ecdsa-Sig-Value of RFC 3279. */
    byte[] signSha256(PrivateKey key, byte[] data) throws GeneralSecurityException;

    /**
     * Whether {@code signature} (DER Ecdsa-Sig-Value) is a valid ECDSA signature over {@code data} with
     * {@code digest} ("SHA-256", "SHA-384" or "SHA-512") by the key in {@code subjectPublicKeyInfo} (DER).
     * A signature that does not decode, or whose r or s is out of range, does not verify (false).
     *
     * @throws InvalidKeyException the key does not decode, is not an EC key, is not a point of one of
     *                             P-256, P-384, P-521, or the digest is none of the three
     */
    boolean verifies(byte[] subjectPublicKeyInfo, String digest, byte[] data, byte[] signature) throws InvalidKeyException;
}
