package dev.sextant.etcd.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * Free TCP ports on 127.0.0.1 below the kernel's ephemeral range, none handed out twice by one instance
 * (local-cluster's FreePort explains why below the range: a port the kernel picks may be given to an
 * outgoing connection before etcd binds it).
 */
public final class LoopbackPorts {
    private static final int LOWEST = 10_000;
    private final Set<Integer> given = new HashSet<>();

    public synchronized int next() {
        return free(1);
    }

    /** A free port P whose successor is free too: the swtpm TCTI of tpm2-tools expects the control port at P+1. */
    public synchronized int pair() {
        return free(2);
    }

    /** The first of {@code count} consecutive ports, each free now and none handed out before. */
    private int free(int count) {
        int highest = ephemeralLow() - count;
        for (int tries = 0; tries < 200; tries++) {
            int first = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
            if (IntStream.range(first, first + count).allMatch(p -> !given.contains(p) && bindable(p))) {
                IntStream.range(first, first + count).forEach(given::add);
                return first;
            }
        }
        throw new IllegalStateException("no " + count + " free consecutive loopback port(s) between " + LOWEST + " and " + highest);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
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
