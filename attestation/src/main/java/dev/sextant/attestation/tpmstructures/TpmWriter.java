package dev.sextant.attestation.tpmstructures;

import java.io.ByteArrayOutputStream;

/** Big-endian writer for TPM command and structure marshalling. */
public final class TpmWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    public TpmWriter u8(int v) {
        out.write(v);
        return this;
    }

    public TpmWriter u16(int v) {
        out.write(v >>> 8);
        out.write(v);
        return this;
    }

    public TpmWriter u32(long v) {
        u16((int) (v >>> 16));
        return u16((int) v);
    }

    public TpmWriter u64(long v) {
        u32(v >>> 32);
        return u32(v);
    }

    public TpmWriter bytes(byte[] b) {
        out.writeBytes(b);
        return this;
    }

    /** A TPM2B: 16-bit size, then the bytes. */
    public TpmWriter sized(byte[] b) {
        u16(b.length);
        return bytes(b);
    }

    public int size() { return out.size(); }

    public byte[] toByteArray() { return out.toByteArray(); }
}
