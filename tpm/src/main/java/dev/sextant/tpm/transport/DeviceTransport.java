package dev.sextant.tpm.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A TPM character device (normally the kernel resource manager /dev/tpmrm0). The kernel takes a
 * whole command per write and hands back the whole response in one read; with tpmrm0 transient
 * objects belong to this open file and are flushed by the kernel when it closes.
 */
public final class DeviceTransport implements TpmTransport {
    private final Path device;
    private final FileChannel channel;

    public DeviceTransport(Path device) throws IOException {
        this.device = device;
        try {
            this.channel = FileChannel.open(device, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new IOException("opening TPM device " + device + ": " + e, e);
        }
    }

    @Override
    public byte[] transmit(byte[] command) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(command);
        while (out.hasRemaining()) {
            channel.write(out);
        }
        ByteBuffer in = ByteBuffer.allocate(ResponseFrames.MAX_RESPONSE);
        int n = channel.read(in);
        if (n < ResponseFrames.HEADER_SIZE) {
            throw new IOException("TPM device " + device + " returned " + n + " bytes, less than a header");
        }
        byte[] response = Arrays.copyOf(in.array(), n);
        int declared = ResponseFrames.declaredSize(response);
        if (declared != n) {
            throw new IOException("TPM device " + device + " returned " + n + " bytes but declared " + declared);
        }
        return response;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() { return "device:" + device; }
}
