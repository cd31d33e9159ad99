package dev.sextant.etcd.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP forwarder from a loopback port to one etcd member, which a test turns into a black hole: from
 * {@link #swallow()} on, bytes either way are read and dropped, and new connections are accepted and
 * never forwarded. Nothing is refused or closed, so the client sees what a cut cable or a dropping
 * firewall gives it: silence, no error. (Stopping a member is the easy case: its connections are refused
 * at once.)
 */
public final class BlackHoleProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new ArrayList<>();
    private volatile boolean swallowing;
    private volatile boolean closed;

    public BlackHoleProxy(int port, String targetEndpoint) throws IOException {
        int colon = targetEndpoint.lastIndexOf(':');
        this.target = new InetSocketAddress(targetEndpoint.substring(0, colon), Integer.parseInt(targetEndpoint.substring(colon + 1)));
        this.server = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        daemon("black-hole proxy :" + port, this::accept);
    }

    /** Where clients connect: {@code 127.0.0.1:port}, in the member certificate's SANs as the member's own address is. */
    public String endpoint() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** From now on nothing passes, and nothing is refused. */
    public void swallow() {
        swallowing = true;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                track(client);
                if (swallowing) {
                    daemon("black hole", () -> pump(client, null));
                    continue;
                }
                Socket upstream = new Socket();
                track(upstream);
                upstream.connect(target, 2000);
                daemon("proxy up", () -> pump(client, upstream));
                daemon("proxy down", () -> pump(upstream, client));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** Copies {@code from} to {@code to} until either ends; drops what it reads once swallowing (or always, without {@code to}). */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to == null ? null : to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                if (!swallowing && out != null) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // one side ended: end the other, unless this is a black hole, which never ends anything
        }
        if (!swallowing) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private synchronized void track(Socket socket) {
        sockets.add(socket);
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        server.close();
        sockets.forEach(BlackHoleProxy::closeQuietly);
    }
}
