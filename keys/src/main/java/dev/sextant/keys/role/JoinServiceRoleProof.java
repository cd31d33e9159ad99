package dev.sextant.keys.role;

import dev.sextant.keys.member.MemberKey;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A join service's proof, in one aTLS handshake, that it holds the cluster's join service role key
 * ({@link JoinServiceRoleKey}): the public key and its Ed25519 signature over
 *
 * <pre>
 * u16 length ‖ "sextant-join-service-role-v1" ‖ client TLS random (32) ‖ SHA-256(SPKI of the service's aTLS certificate) (32)
 * </pre>
 *
 * The label separates it from everything else a project Ed25519 key signs; the client's random makes
 * it good for this handshake only (a recorded proof fails on any other, whose random the client chose
 * afresh); the SPKI digest ties it to the certificate whose key completes the handshake (a relay that
 * forwards the proof under a certificate of its own fails). Encoding (96 bytes, as the aTLS
 * certificate's extension carries it): public key (32) ‖ signature (64).
 *
 * @param publicKey the role key's 32-byte public key
 * @param signature the 64-byte signature
 */
public record JoinServiceRoleProof(byte[] publicKey, byte[] signature) {
    static final String LABEL = "sextant-join-service-role-v1";
    public static final int BYTES = MemberKey.PUBLIC_KEY_BYTES + MemberKey.SIGNATURE_BYTES;
    /** What a node's TPM record keeps of the public key: the first 20 bytes of its SHA-256 (second preimages cost 2^160). */
    public static final int DIGEST_BYTES = 20;
    static final int TLS_RANDOM_BYTES = 32;
    static final int SPKI_HASH_BYTES = 32;

    /** Strict sizes; IllegalArgumentException otherwise. */
    public JoinServiceRoleProof {
        if (publicKey.length != MemberKey.PUBLIC_KEY_BYTES || signature.length != MemberKey.SIGNATURE_BYTES) {
            throw new IllegalArgumentException("a join service role proof is a " + MemberKey.PUBLIC_KEY_BYTES
                    + "-byte key and a " + MemberKey.SIGNATURE_BYTES + "-byte signature, got " + publicKey.length
                    + " and " + signature.length);
        }
        publicKey = publicKey.clone();
        signature = signature.clone();
    }

    /** Reads the {@value #BYTES} bytes of {@link #encode()}; IllegalArgumentException for any other length. */
    public static JoinServiceRoleProof decode(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("a join service role proof is " + BYTES + " bytes, got " + bytes.length);
        }
        return new JoinServiceRoleProof(Arrays.copyOfRange(bytes, 0, MemberKey.PUBLIC_KEY_BYTES),
                Arrays.copyOfRange(bytes, MemberKey.PUBLIC_KEY_BYTES, BYTES));
    }

    public byte[] encode() {
        byte[] out = Arrays.copyOf(publicKey, BYTES);
        System.arraycopy(signature, 0, out, MemberKey.PUBLIC_KEY_BYTES, MemberKey.SIGNATURE_BYTES);
        return out;
    }

    @Override
    public byte[] publicKey() { return publicKey.clone(); }

    @Override
    public byte[] signature() { return signature.clone(); }

    /**
     * True when the key's digest is {@code expectedDigest} (a node's record) and the signature is that
     * key's over this handshake's {@code clientRandom} and {@code spkiHash}.
     */
    public boolean provesFor(byte[] expectedDigest, byte[] clientRandom, byte[] spkiHash) {
        return isKey(expectedDigest) && signedFor(clientRandom, spkiHash);
    }

    /** True when the public key's digest is {@code expectedDigest} (what a node's record holds); constant time. */
    public boolean isKey(byte[] expectedDigest) {
        return MessageDigest.isEqual(digestOf(publicKey), expectedDigest);
    }

    /** True when the signature is the public key's over the handshake of {@code clientRandom} and {@code spkiHash}. */
    public boolean signedFor(byte[] clientRandom, byte[] spkiHash) {
        return MemberKey.verify(publicKey, signedMessage(clientRandom, spkiHash), signature);
    }

    /** What a node remembers of a role public key: the first {@value #DIGEST_BYTES} bytes of its SHA-256. */
    public static byte[] digestOf(byte[] publicKey) {
        try {
            return Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(publicKey), DIGEST_BYTES);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** What the role key signs in the handshake of {@code clientRandom} for the certificate whose SPKI hashes to {@code spkiHash}. */
    static byte[] signedMessage(byte[] clientRandom, byte[] spkiHash) {
        if (clientRandom.length != TLS_RANDOM_BYTES || spkiHash.length != SPKI_HASH_BYTES) {
            throw new IllegalArgumentException("a client TLS random and an SPKI digest are 32 bytes each, got "
                    + clientRandom.length + " and " + spkiHash.length);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(LABEL);
            out.write(clientRandom);
            out.write(spkiHash);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JoinServiceRoleProof p && Arrays.equals(publicKey, p.publicKey) && Arrays.equals(signature, p.signature);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(publicKey) + Arrays.hashCode(signature);
    }

    @Override
    public String toString() {
        return "JoinServiceRoleProof[key digest " + java.util.HexFormat.of().formatHex(digestOf(publicKey), 0, 6) + "…]";
    }
}
