package dev.sextant.attestation.tpmstructures;

import java.util.Arrays;

/**
 * Big-endian reader over untrusted TPM bytes. Every read checks the remaining length first, so
 * malformed input surfaces as {@link TpmFormatException} and never as a runtime exception.
 */
public final class TpmReader {
    private final byte[] data;
    private final String structure;
    private int pos;
    private final int end;

    public TpmReader(byte[] data, String structure) {
        this(data, 0, data.length, structure);
    }

    private TpmReader(byte[] data, int from, int to, String structure) {
        this.data = data;
        this.pos = from;
        this.end = to;
        this.structure = structure;
    }

    public int position() { return pos; }

    public int remaining() { return end - pos; }

    public int u8(String field) throws TpmFormatException {
        need(1, field);
        return data[pos++] & 0xff;
    }

    public int u16(String field) throws TpmFormatException {
        need(2, field);
        int v = ((data[pos] & 0xff) << 8) | (data[pos + 1] & 0xff);
        pos += 2;
        return v;
    }

    /** Unsigned 32-bit value; callers that use it as a length must bound it themselves. */
    public long u32(String field) throws TpmFormatException {
        need(4, field);
        long v = ((long) (data[pos] & 0xff) << 24) | ((data[pos + 1] & 0xff) << 16)
                | ((data[pos + 2] & 0xff) << 8) | (data[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    public long u64(String field) throws TpmFormatException {
        long hi = u32(field);
        long lo = u32(field);
        return (hi << 32) | lo;
    }

    /** Little-endian 32-bit value (the TCG event log is little-endian). */
    public long u32le(String field) throws TpmFormatException {
        need(4, field);
        long v = (data[pos] & 0xff) | ((data[pos + 1] & 0xff) << 8)
                | ((data[pos + 2] & 0xff) << 16) | ((long) (data[pos + 3] & 0xff) << 24);
        pos += 4;
        return v;
    }

    public int u16le(String field) throws TpmFormatException {
        need(2, field);
        int v = (data[pos] & 0xff) | ((data[pos + 1] & 0xff) << 8);
        pos += 2;
        return v;
    }

    public byte[] bytes(int n, String field) throws TpmFormatException {
        if (n < 0) {
            throw fail(field, "negative length " + n);
        }
        need(n, field);
        byte[] out = Arrays.copyOfRange(data, pos, pos + n);
        pos += n;
        return out;
    }

    /** A TPM2B: 16-bit size then that many bytes, at most {@code max}. */
    public byte[] sized(int max, String field) throws TpmFormatException {
        int n = u16(field + ".size");
        if (n > max) {
            throw fail(field, "size " + n + " exceeds the limit " + max);
        }
        return bytes(n, field);
    }

    /** A reader over the next {@code n} bytes, advancing this one past them. */
    public TpmReader slice(int n, String field) throws TpmFormatException {
        if (n < 0) {
            throw fail(field, "negative length " + n);
        }
        need(n, field);
        TpmReader inner = new TpmReader(data, pos, pos + n, structure);
        pos += n;
        return inner;
    }

    /** Raw bytes consumed between {@code from} (an earlier {@link #position()}) and now. */
    public byte[] consumedSince(int from) {
        return Arrays.copyOfRange(data, from, pos);
    }

    public void expectEnd() throws TpmFormatException {
        if (pos != end) {
            throw fail("end", (end - pos) + " trailing bytes");
        }
    }

    public TpmFormatException fail(String field, String problem) {
        return new TpmFormatException(structure, field, pos, problem);
    }

    private void need(int n, String field) throws TpmFormatException {
        if (n > end - pos) {
            throw fail(field, "needs " + n + " bytes, " + (end - pos) + " left");
        }
    }
}
