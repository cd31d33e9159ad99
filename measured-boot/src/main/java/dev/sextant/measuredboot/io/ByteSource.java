package dev.sextant.measuredboot.io;

import dev.sextant.attestation.digest.Sha256;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;

/**
 * Random read access to a bounded run of bytes (a file, a slice of a disk image, an array).
 * Every read is bounds-checked against {@link #size()}, so a parser that trusts an offset from
 * the input gets a {@link MalformedImageException} naming it instead of reading garbage.
 */
public interface ByteSource {

    long size();

    /** Copies exactly {@code len} bytes starting at {@code position} into {@code dst[off..]}. */
    void readFully(long position, byte[] dst, int off, int len) throws IOException;

    /** Reads {@code len} bytes at {@code position} as a little-endian buffer, checking bounds. */
    default ByteBuffer read(String structure, long position, int len)
            throws IOException, MalformedImageException {
        require(structure, position, len);
        byte[] b = new byte[len];
        readFully(position, b, 0, len);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Fails unless [position, position + len) lies inside this source. */
    default void require(String structure, long position, long len) throws MalformedImageException {
        if (position < 0 || len < 0 || position > size() || len > size() - position) {
            throw new MalformedImageException(structure, position,
                    len + " bytes requested but the input ends at byte " + size());
        }
    }

    /** Feeds bytes [from, to) to {@code digest} in chunks of at most 1 MiB: a source of any size hashes in bounded memory. */
    default void feed(MessageDigest digest, long from, long to) throws IOException {
        byte[] buf = new byte[(int) Math.min(1 << 20, Math.max(1, to - from))];
        for (long pos = from; pos < to; ) {
            int n = (int) Math.min(buf.length, to - pos);
            readFully(pos, buf, 0, n);
            digest.update(buf, 0, n);
            pos += n;
        }
    }

    /** SHA-256 of the whole source. */
    default byte[] sha256() throws IOException {
        MessageDigest digest = Sha256.newDigest();
        feed(digest, 0, size());
        return digest.digest();
    }

    /** A window [offset, offset + length) of this source; fails if it does not fit. */
    default ByteSource slice(String structure, long offset, long length) throws MalformedImageException {
        require(structure, offset, length);
        return new SliceSource(this, offset, length);
    }
}
