package dev.sextant.nodeboot.initserver;

import dev.sextant.attestation.digest.Sha256;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * The init secret's salted hash: "sha256:SALT_HEX:DIGEST_HEX", DIGEST = SHA-256(SALT || secret).
 * A salted fast hash suffices because the secret is 32 random bytes (no dictionary to slow down,
 * unlike bcrypt's use case); the salt stops one precomputed table serving every node.
 */
public final class InitSecretHash {
    private static final int MIN_SALT = 16;

    private final byte[] salt;
    private final byte[] digest;

    private InitSecretHash(byte[] salt, byte[] digest) {
        this.salt = salt;
        this.digest = digest;
    }

    public static InitSecretHash parse(String text) throws IOException {
        String[] parts = text.strip().split(":");
        if (parts.length != 3 || !parts[0].equals("sha256")) {
            throw new IOException("init secret hash must be sha256:SALT_HEX:DIGEST_HEX");
        }
        try {
            byte[] salt = HexFormat.of().parseHex(parts[1]);
            byte[] digest = HexFormat.of().parseHex(parts[2]);
            if (salt.length < MIN_SALT || digest.length != 32) {
                throw new IOException("init secret hash needs a salt of at least " + MIN_SALT
                        + " bytes and a 32-byte digest");
            }
            return new InitSecretHash(salt, digest);
        } catch (IllegalArgumentException e) {
            throw new IOException("init secret hash is not hex: " + e.getMessage(), e);
        }
    }

    public static InitSecretHash read(Path file) throws IOException {
        return parse(Files.readString(file));
    }

    /** The file content for {@code secret} with {@code salt} (what the image or `mini up` writes). */
    public static String format(byte[] salt, byte[] secret) {
        return "sha256:" + HexFormat.of().formatHex(salt) + ":" + HexFormat.of().formatHex(hash(salt, secret)) + "\n";
    }

    /** Constant time in the secret's content: MessageDigest.isEqual over equal-length digests. */
    public boolean matches(byte[] secret) {
        return MessageDigest.isEqual(digest, hash(salt, secret));
    }

    private static byte[] hash(byte[] salt, byte[] secret) {
        return Sha256.of(salt, secret);
    }
}
