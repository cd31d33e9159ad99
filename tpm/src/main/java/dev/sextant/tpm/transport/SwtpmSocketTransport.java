package dev.sextant.tpm.transport;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * swtpm's TCP data port (what tpm2-tss's "swtpm" TCTI speaks): raw command bytes out, raw
 * response bytes back, no extra framing. swtpm serves one connection at a time, so one transport
 * per swtpm process; a second one blocks until the first closes.
 */
public final class SwtpmSocketTransport implements TpmTransport {
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    /** RSA key generation in a software TPM can take seconds; a minute means it is gone. */
    private static final int READ_TIMEOUT_MS = 60_000;

    private final String host;
    private final int port;
    private Socket socket;

    public SwtpmSocketTransport(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.socket = connect();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            s.setSoTimeout(READ_TIMEOUT_MS);
            s.setTcpNoDelay(true);
            return s;
        } catch (IOException e) {
            s.close();
            throw new IOException("connecting to swtpm at " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] transmit(byte[] command) throws IOException {
        if (socket == null) {
            throw new IOException("swtpm transport to " + host + ":" + port + " is closed");
        }
        OutputStream out = socket.getOutputStream();
        out.write(command);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] header = new byte[ResponseFrames.HEADER_SIZE];
        in.readFully(header);
        byte[] response = new byte[ResponseFrames.declaredSize(header)];
        System.arraycopy(header, 0, response, 0, header.length);
        in.readFully(response, header.length, response.length - header.length);
        return response;
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
            socket = null;
        }
    }

    @Override
    public String toString() { return "swtpm:" + host + ":" + port; }
}
