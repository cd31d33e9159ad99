package dev.sextant.etcd.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on 127.0.0.1 below the kernel's ephemeral range, none handed out twice by one instance
 * (local-cluster's FreePort explains why below the range: a port the kernel picks may be given to an
 * outgoing connection before etcd binds it).
 */
public final class LoopbackPorts {
    private static final int LOWEST = 10_000;
    private final Set<Integer> given = new HashSet<>();

    public synchronized int next() {
        int highest = ephemeralLow() - 1;
        for (int tries = 0; tries < 200; tries++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
            if (given.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                given.add(port);
                return port;
            } catch (IOException taken) {
                // in use: another
            }
        }
        throw new IllegalStateException("no free loopback port between " + LOWEST + " and " + highest);
    }

    private static int ephemeralLow() {
        try {
            int low = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
            return low > LOWEST + 100 ? low : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
