package dev.sextant.localcluster.qemu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Picks a free TCP port on 127.0.0.1 (all test traffic stays on loopback). */
public final class FreePort {
    private FreePort() {
    }

    /**
     * Asks the kernel for a free port and releases it. Another process may take it before QEMU
     * binds it; QEMU then fails to start and says so on its stderr, which the harness reports.
     */
    public static int pick() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("picking a free loopback port", e);
        }
    }
}
