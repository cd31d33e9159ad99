package dev.sextant.attestation;

import dev.sextant.attestation.digest.Sha256;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Qualifying data of a quote, shared by issuers and verifiers:
 * SHA-256(len(label) ‖ label ‖ len(nonce) ‖ nonce ‖ len(userData) ‖ userData), lengths as big-endian
 * u32. The label separates purposes; the lengths make the encoding injective, so no choice of nonce
 * and user data under one label collides with another split of the same bytes.
 */
public final class Qualification {
    private Qualification() {}

    public static byte[] of(Purpose purpose, byte[] nonce, byte[] userData) {
        MessageDigest sha = Sha256.newDigest();
        field(sha, purpose.label().getBytes(StandardCharsets.US_ASCII));
        field(sha, nonce);
        field(sha, userData);
        return sha.digest();
    }

    private static void field(MessageDigest sha, byte[] value) {
        sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(value.length).array());
        sha.update(value);
    }
}
