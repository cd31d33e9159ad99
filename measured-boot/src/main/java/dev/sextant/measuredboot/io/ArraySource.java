package dev.sextant.measuredboot.io;

import java.io.IOException;

/** A byte array as a source (a file extracted from FAT, a test fixture). The array is not copied. */
public record ArraySource(byte[] bytes) implements ByteSource {

    @Override
    public long size() { return bytes.length; }

    @Override
    public void readFully(long position, byte[] dst, int off, int len) throws IOException {
        if (position < 0 || len < 0 || position > bytes.length - len) {
            throw new IOException("read of " + len + " bytes at " + position + " outside " + bytes.length);
        }
        System.arraycopy(bytes, (int) position, dst, off, len);
    }
}
