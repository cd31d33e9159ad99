package dev.sextant.joinapi.reattest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay in front of one node's port that counts every byte it carries both ways: what the
 * re-attestation costs on the wire (TLS handshake, records, HTTP/2 framing and all), counted at the
 * socket rather than from gRPC's message sizes, which leave the handshake and the framing out.
 * For {@link ReAttestationBench} only; platform threads, two per open connection.
 */
final class ByteCountingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private volatile boolean closed;

    ByteCountingProxy(String targetHostPort) throws IOException {
        int colon = targetHostPort.lastIndexOf(':');
        target = new InetSocketAddress(targetHostPort.substring(0, colon), Integer.parseInt(targetHostPort.substring(colon + 1)));
        listener = new ServerSocket(0, 64, InetAddress.getByName("127.0.0.1"));
        Thread accept = new Thread(this::accept, "proxy-accept-" + listener.getLocalPort());
        accept.setDaemon(true);
        accept.start();
    }

    String endpoint() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Bytes carried so far, both directions together. */
    long bytes() {
        return bytes.get();
    }

    long connections() {
        return connections.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                connections.incrementAndGet();
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    bytes.addAndGet(n);
                }
            } catch (IOException ignored) {
                // the other direction's end closed it
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
    }
}
