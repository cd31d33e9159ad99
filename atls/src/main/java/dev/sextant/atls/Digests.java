package dev.sextant.atls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

final class Digests {
    private Digests() {}

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }
}
