package dev.sextant.measuredboot.io;

import java.io.IOException;

/** A bounds-checked window into another source (a partition inside a disk, a PE section). */
record SliceSource(ByteSource parent, long base, long size) implements ByteSource {

    @Override
    public void readFully(long position, byte[] dst, int off, int len) throws IOException {
        if (position < 0 || len < 0 || position > size - len) {
            throw new IOException("read of " + len + " bytes at " + position + " outside a slice of " + size);
        }
        parent.readFully(base + position, dst, off, len);
    }
}
