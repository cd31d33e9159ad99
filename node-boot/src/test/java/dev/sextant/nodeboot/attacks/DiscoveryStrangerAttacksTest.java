package dev.sextant.nodeboot.attacks;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.nodeboot.endpointdiscovery.EndpointRecord;
import dev.sextant.nodeboot.endpointdiscovery.GossipNode;
import dev.sextant.nodeboot.endpointdiscovery.TestMembers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Attacks on endpoint discovery from a host on the network that holds no group key. (A process
 * with another key joining nobody is SealedGroupTest's and DiscoveryNetnsTest's row.)
 */
@DisplayName("Attacks on endpoint discovery from a stranger without the group key")
class DiscoveryStrangerAttacksTest {
    private static final String ADDRESS = "127.0.0.57";

    @Test
    @DisplayName("a stranger probing every port a member listens on finds only the sealed group port, and no port answers it a byte")
    void strangerProbesEveryPort() throws Exception {
        InetAddress bind = InetAddress.getByName(ADDRESS);
        int port = FreePorts.on(bind);
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        var config = new GossipNode.Config("probed", bind, port, List.of(new InetSocketAddress(bind, port)), "internal.demo",
                Duration.ofSeconds(4), Duration.ofSeconds(30));
        Set<Integer> before = listeningPorts();
        try (GossipNode member = GossipNode.start(config, key, TestMembers.random().controlPlane("probed"), r -> { })) {
            member.publish(Set.of(new EndpointRecord("api.internal.demo", ADDRESS, 6443)));
            Set<Integer> listening = listeningPorts();
            listening.removeAll(before);
            // FD_SOCK2 would listen on port + 100 outside the sealed transport and answer in clear text.
            assertEquals(Set.of(port), listening, "ports a stranger can reach");
            for (int p : listening) {
                assertEquals(0, bytesAnswered(bind, p), "bytes port " + p + " sent to a stranger");
            }
        }
    }

    /**
     * Connects, sends what a JGroups peer sends first (its cookie and version) followed by a clear-text
     * membership question's worth of bytes, and counts what comes back within two seconds.
     */
    private static int bytesAnswered(InetAddress address, int port) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 2000);
            s.setSoTimeout(2000);
            byte[] probe = ("bela" + "\u0005\u0005" + "GET_MBRS_REQ sextant-discovery").getBytes(StandardCharsets.ISO_8859_1);
            s.getOutputStream().write(probe);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            int total = 0;
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    total += n;
                }
            } catch (SocketTimeoutException quiet) {
                // Nothing more within the timeout.
            } catch (java.net.SocketException reset) {
                // Closed on us: nothing more.
            }
            return total;
        }
    }

    /**
     * TCP ports this JVM listens on, any address (FD_SOCK2 listened on every interface), from
     * /proc/net/tcp and tcp6 matched against this process's socket descriptors (Linux).
     */
    private static Set<Integer> listeningPorts() throws Exception {
        Set<String> inodes = new java.util.HashSet<>();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (java.io.IOException closedMeanwhile) {
                    // A descriptor that closed while listing.
                }
            }
        }
        Set<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.strip().split("\\s+");
                if (f.length > 9 && f[3].equals("0A") && inodes.contains(f[9])) {
                    ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }
}
