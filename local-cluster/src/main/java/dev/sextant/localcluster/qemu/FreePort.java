package dev.sextant.localcluster.qemu;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/** Picks a free TCP port on 127.0.0.1 (all test traffic stays on loopback). */
public final class FreePort {
    /** Lowest port picked: above the well-known and most registered service ports. */
    private static final int LOWEST = 10_000;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    private FreePort() {
    }

    /**
     * A port nothing listens on, below the kernel's ephemeral range. A port the kernel chose itself
     * (bind to 0) comes from that range, where any outgoing connection may be given it as its local
     * port before the process it was picked for binds it: a node's recovery port, picked at the
     * start of a test and bound minutes later, can be taken so. Ports below the range are never
     * handed out that way. Another process may still bind the port first; QEMU or the node then fails
     * to start and says so, which the harness reports.
     */
    public static int pick() {
        int highest = ephemeralLow() - 2; // freePortPair-style callers use the next port too
        for (int tries = 0; tries < 100; tries++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // Someone listens there (or just did): try another.
            }
        }
        throw new IllegalStateException("no free loopback port between " + LOWEST + " and " + highest + " in 100 tries");
    }

    /** The low end of net.ipv4.ip_local_port_range, 32768 (Linux's default) if it cannot be read. */
    private static int ephemeralLow() {
        try {
            int low = Integer.parseInt(Files.readString(EPHEMERAL_RANGE).trim().split("\\s+")[0]);
            return low > LOWEST + 100 ? low : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
