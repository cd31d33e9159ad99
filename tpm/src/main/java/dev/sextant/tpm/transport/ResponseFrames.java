package dev.sextant.tpm.transport;

import java.io.IOException;

/** Checks of the 10-byte response header every transport shares (TPM 2.0 Part 1, §18.8). */
final class ResponseFrames {
    static final int HEADER_SIZE = 10;
    /** No TPM response we send for is larger than this; a larger size means a broken stream. */
    static final int MAX_RESPONSE = 64 * 1024;

    private ResponseFrames() {}

    /** The responseSize field of a header, bounded so a corrupt stream cannot make us allocate. */
    static int declaredSize(byte[] header) throws IOException {
        long size = ((long) (header[2] & 0xff) << 24) | ((header[3] & 0xff) << 16)
                | ((header[4] & 0xff) << 8) | (header[5] & 0xff);
        if (size < HEADER_SIZE || size > MAX_RESPONSE) {
            throw new IOException("TPM response declares size " + size + ", outside 10.." + MAX_RESPONSE);
        }
        return (int) size;
    }
}
