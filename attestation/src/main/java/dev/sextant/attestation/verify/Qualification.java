package dev.sextant.attestation.verify;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Qualifying data of a quote: SHA-256(nonce || userData) (design decision 3). Shared by both sides. */
public final class Qualification {
    private Qualification() {}

    public static byte[] of(byte[] nonce, byte[] userData) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(nonce);
            sha.update(userData);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }
}
