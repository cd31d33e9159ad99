package dev.sextant.measuredboot.io;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 over sources of any size, streamed in 1 MiB chunks. */
public final class Digests {
    private static final int CHUNK = 1 << 20;

    private Digests() {
    }

    public static byte[] sha256(byte[] data) {
        return newSha256().digest(data);
    }

    public static byte[] sha256(ByteSource src) throws IOException {
        MessageDigest md = newSha256();
        byte[] buf = new byte[(int) Math.min(CHUNK, Math.max(1, src.size()))];
        for (long pos = 0; pos < src.size(); ) {
            int n = (int) Math.min(buf.length, src.size() - pos);
            src.readFully(pos, buf, 0, n);
            md.update(buf, 0, n);
            pos += n;
        }
        return md.digest();
    }

    public static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
