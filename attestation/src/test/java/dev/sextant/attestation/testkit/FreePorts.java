package dev.sextant.attestation.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TCP ports nothing listens on, for tests that must name a port before anything binds it: a
 * discovery member's seed list names the others' ports before any of them starts, a test hands a
 * port to a process it starts. They come from below Linux's ephemeral range (32768–60999): a port
 * the kernel hands out for ephemeral use can be taken by any outgoing connection between being
 * chosen and being bound (seen at 64 discovery members), one below that range cannot. (The local
 * cluster's {@code FreePort} does the same for the nodes {@code mini up} starts.)
 */
public final class FreePorts {
    private static final int LOWEST = 20_000;
    private static final int SPREAD = 10_000;
    /** Below 32768, where Linux's default ephemeral range starts. */
    private static final int CEILING = 32_000;

    private FreePorts() {}

    /** One free port on the loopback address. */
    public static int loopback() {
        return loopback(1)[0];
    }

    /** {@code count} distinct free ports on the loopback address. */
    public static int[] loopback(int count) {
        return on(InetAddress.getLoopbackAddress(), count);
    }

    /** One free port on {@code address}. */
    public static int on(InetAddress address) {
        return on(address, 1)[0];
    }

    /**
     * {@code count} distinct free ports on {@code address}: consecutive candidates from a random start,
     * so that tests running at the same time seldom try the same ones.
     */
    public static int[] on(InetAddress address, int count) {
        int[] ports = new int[count];
        int found = 0;
        int start = LOWEST + ThreadLocalRandom.current().nextInt(SPREAD);
        for (int port = start; found < count && port < CEILING; port++) {
            try (ServerSocket socket = new ServerSocket(port, 1, address)) {
                ports[found++] = port;
            } catch (IOException taken) {
                // In use: try the next one.
            }
        }
        if (found < count) {
            throw new IllegalStateException("fewer than " + count + " free ports on " + address + " from " + start);
        }
        return ports;
    }
}
