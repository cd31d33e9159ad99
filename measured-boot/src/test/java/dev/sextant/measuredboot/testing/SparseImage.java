package dev.sextant.measuredboot.testing;

import dev.sextant.measuredboot.io.ByteSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A disk or volume image as a fuzz input: its size, then the runs of bytes that are not zero.
 * A real GPT disk or FAT volume is mostly zeros (a FAT32 volume needs 65525 clusters, 33 MB at
 * least), and the readers check every structure against the image's size, so a seed must keep
 * the size while only its non-zero bytes are worth storing and mutating.
 *
 * <pre>
 * input := size:u32le chunk*          (size capped at {@value #MAX_SIZE} bytes)
 * chunk := offset:u32le length:u16le bytes[length]   (the last one may be cut short by the input's end)
 * </pre>
 * Bytes no chunk covers read as zero; a later chunk overrides an earlier one; chunk bytes past
 * the size are ignored.
 */
public final class SparseImage implements ByteSource {
    /** Above the largest seed, a disk with the node image's 128 MiB FAT32 ESP. */
    public static final long MAX_SIZE = 256L << 20;
    /** Zero runs shorter than this stay inside a chunk: a chunk header costs 6 bytes. */
    private static final int MERGE_GAP = 32;

    private record Chunk(long offset, byte[] bytes) {}

    private final long size;
    private final List<Chunk> chunks;

    private SparseImage(long size, List<Chunk> chunks) {
        this.size = size;
        this.chunks = chunks;
    }

    /** Any bytes decode: too short an input is an empty image. */
    public static SparseImage decode(byte[] input) {
        ByteBuffer b = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
        long size = b.remaining() >= 4 ? Math.min(b.getInt() & 0xFFFFFFFFL, MAX_SIZE) : 0;
        List<Chunk> chunks = new ArrayList<>();
        while (b.remaining() >= 6) {
            long offset = b.getInt() & 0xFFFFFFFFL;
            int length = Math.min(b.getShort() & 0xFFFF, b.remaining());
            byte[] bytes = new byte[length];
            b.get(bytes);
            if (offset < size) {
                chunks.add(new Chunk(offset, Arrays.copyOf(bytes, (int) Math.min(length, size - offset))));
            }
        }
        return new SparseImage(size, chunks);
    }

    /** The seed form of a whole image. */
    public static byte[] encode(byte[] image) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(le(4, image.length));
        int at = 0;
        while (at < image.length) {
            while (at < image.length && image[at] == 0) {
                at++;
            }
            if (at == image.length) {
                break;
            }
            int end = at;
            int zeros = 0;
            while (end + zeros < image.length && zeros < MERGE_GAP && end - at < 0xFFFF) {
                if (image[end + zeros] == 0) {
                    zeros++;
                } else {
                    end += zeros + 1;
                    zeros = 0;
                }
            }
            end = Math.min(end, at + 0xFFFF);
            out.writeBytes(le(4, at));
            out.writeBytes(le(2, end - at));
            out.write(image, at, end - at);
            at = end;
        }
        return out.toByteArray();
    }

    private static byte[] le(int n, long v) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void readFully(long position, byte[] dst, int off, int len) throws IOException {
        if (position < 0 || len < 0 || position > size - len) {
            throw new IOException("read of " + len + " bytes at " + position + " outside " + size);
        }
        Arrays.fill(dst, off, off + len, (byte) 0);
        for (Chunk c : chunks) {
            long from = Math.max(position, c.offset());
            long to = Math.min(position + len, c.offset() + c.bytes().length);
            if (from < to) {
                System.arraycopy(c.bytes(), (int) (from - c.offset()), dst, off + (int) (from - position), (int) (to - from));
            }
        }
    }
}
