package dev.sextant.attestation;


import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Qualifying data of a quote, shared by issuers and verifiers:
 * SHA-256(len(label) ‖ label ‖ len(nonce) ‖ nonce ‖ len(userData) ‖ userData), lengths as big-endian
 * u32. The label separates purposes; the lengths make the encoding injective, so no choice of nonce
 * and user data under one label collides with another split of the same bytes.
 */
public final class Qualification {
    private Qualification() {}

    public static byte[] of(Purpose purpose, byte[] nonce, byte[] userData) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            field(sha, purpose.label().getBytes(StandardCharsets.US_ASCII));
            field(sha, nonce);
            field(sha, userData);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    private static void field(MessageDigest sha, byte[] value) {
        sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(value.length).array());
        sha.update(value);
    }
}
