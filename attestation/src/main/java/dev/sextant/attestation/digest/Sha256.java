package dev.sextant.attestation.digest;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256, the digest of the PCR bank, the quotes, the certificates' keys and the node's secrets: one
 * place that asks the JDK for it. Every Java platform must provide SHA-256, so its absence is a
 * broken JDK, not an error a caller could handle.
 */
public final class Sha256 {
    private Sha256() {
    }

    /** SHA-256 over {@code parts} one after the other, as if concatenated. */
    public static byte[] of(byte[]... parts) {
        MessageDigest digest = newDigest();
        for (byte[] part : parts) {
            digest.update(part);
        }
        return digest.digest();
    }

    /** {@link #of} in lower-case hex. */
    public static String hex(byte[]... parts) {
        return HexFormat.of().formatHex(of(parts));
    }

    /** A fresh digest, for input fed in pieces (a stream, length-prefixed fields). */
    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
