package dev.sextant.measuredboot.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file read through positional reads, so a multi-gigabyte disk image is never loaded whole.
 * The size is fixed when opened: a file that shrinks underneath gives an EOFException, not a hang.
 */
public final class FileSource implements ByteSource, AutoCloseable {
    private final FileChannel channel;
    private final long size;

    private FileSource(FileChannel channel) throws IOException {
        this.channel = channel;
        this.size = channel.size();
    }

    public static FileSource open(Path path) throws IOException {
        return new FileSource(FileChannel.open(path, StandardOpenOption.READ));
    }

    @Override
    public long size() { return size; }

    @Override
    public void readFully(long position, byte[] dst, int off, int len) throws IOException {
        if (position < 0 || len < 0 || position > size - len) {
            throw new EOFException("read of " + len + " bytes at " + position + " outside " + size);
        }
        ByteBuffer buf = ByteBuffer.wrap(dst, off, len);
        while (buf.hasRemaining()) {
            int n = channel.read(buf, position + buf.position() - off);
            if (n < 0) {
                throw new EOFException("file ended at " + (position + buf.position() - off));
            }
        }
    }

    @Override
    public void close() throws IOException { channel.close(); }
}
