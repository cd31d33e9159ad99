package dev.sextant.kms;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The cluster's master secret and salt, read once at start from two files of raw bytes (a mounted
 * Kubernetes Secret). Every data key is derived from these, so the class never reveals them: no
 * accessor is public, {@link #toString()} shows only lengths, and load errors name the file, never
 * its content.
 */
public final class MasterSecret {

    /** Same floors as the reference key service: 128 bits of secret, 256 bits of salt. */
    static final int MIN_SECRET_BYTES = 16;
    static final int MIN_SALT_BYTES = 32;
    /** A key file is tiny; anything bigger is a wrong mount, and reading it whole would be a waste. */
    static final int MAX_FILE_BYTES = 4096;

    private final byte[] secret;
    private final byte[] salt;

    private MasterSecret(byte[] secret, byte[] salt) {
        this.secret = secret;
        this.salt = salt;
    }

    /** Wraps in-memory bytes (copied); same size rules as {@link #load}. */
    public static MasterSecret of(byte[] secret, byte[] salt) {
        requireLength("master secret", secret.length, MIN_SECRET_BYTES);
        requireLength("salt", salt.length, MIN_SALT_BYTES);
        return new MasterSecret(secret.clone(), salt.clone());
    }

    /**
     * Reads both files.
     *
     * @throws MasterSecretException naming the file when it is missing, unreadable, too short or too long
     */
    public static MasterSecret load(Path secretFile, Path saltFile) {
        byte[] secret = readKeyFile("master secret", secretFile, MIN_SECRET_BYTES);
        byte[] salt = readKeyFile("salt", saltFile, MIN_SALT_BYTES);
        return new MasterSecret(secret, salt);
    }

    private static byte[] readKeyFile(String what, Path file, int minBytes) {
        byte[] content;
        try (InputStream in = Files.newInputStream(file)) {
            content = in.readNBytes(MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            // The exception text names the path and the OS error only; there is no content to leak yet.
            throw new MasterSecretException("cannot read the " + what + " file " + file + ": " + e, e);
        }
        if (content.length > MAX_FILE_BYTES) {
            Arrays.fill(content, (byte) 0);
            throw new MasterSecretException("the " + what + " file " + file + " is larger than "
                    + MAX_FILE_BYTES + " bytes; is the right Secret mounted?", null);
        }
        if (content.length < minBytes) {
            int length = content.length;
            Arrays.fill(content, (byte) 0);
            throw new MasterSecretException("the " + what + " file " + file + " holds " + length
                    + " bytes; at least " + minBytes + " are required", null);
        }
        return content;
    }

    private static void requireLength(String what, int length, int minBytes) {
        if (length < minBytes) {
            throw new MasterSecretException("the " + what + " has " + length
                    + " bytes; at least " + minBytes + " are required", null);
        }
    }

    byte[] secret() {
        return secret.clone();
    }

    byte[] salt() {
        return salt.clone();
    }

    @Override
    public String toString() {
        return "MasterSecret[secret=" + secret.length + " bytes, salt=" + salt.length + " bytes]";
    }
}
