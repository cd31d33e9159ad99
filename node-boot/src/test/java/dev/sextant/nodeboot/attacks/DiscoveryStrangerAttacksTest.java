package dev.sextant.nodeboot.attacks;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.housekeeping.discovery.ClearTextStranger;
import dev.sextant.housekeeping.discovery.EndpointRecord;
import dev.sextant.housekeeping.discovery.GossipNode;
import dev.sextant.housekeeping.discovery.TestMembers;
import ch.qos.logback.classic.Level;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
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
    private static final String MEMBER = "probed";

    @Test
    @DisplayName("a stranger probing every port a member listens on finds only the sealed group port")
    void strangerProbesEveryPort() throws Exception {
        InetAddress bind = InetAddress.getByName(ADDRESS);
        int port = FreePorts.on(bind);
        Set<Integer> before = listeningPorts();
        try (GossipNode member = startMember(bind, port)) {
            Set<Integer> listening = listeningPorts();
            listening.removeAll(before);
            // FD_SOCK2 would listen on port + 100 outside the sealed transport and answer in clear text.
            assertEquals(Set.of(port), listening, "ports a stranger can reach");
        }
    }

    @Test
    @DisplayName("a stranger speaking the members' own stack in clear text to the group port hears nothing back: no discovery answer, no message, it stays alone")
    void strangerSpeakingTheStackInClearTextIsUnanswered() throws Exception {
        InetAddress bind = InetAddress.getByName(ADDRESS);
        int[] ports = FreePorts.on(bind, 2);
        try (GossipNode member = startMember(bind, ports[0]);
             ClearTextStranger stranger = new ClearTextStranger("stranger", bind, ports[1],
                     List.of(new InetSocketAddress(bind, ports[0])))) {
            // Joining asked the seed; merge rounds (every 1-2 s at this failure timeout) keep asking meanwhile.
            Thread.sleep(4_000);
            assertEquals(0, stranger.messagesHeard(), "messages the member sent the stranger");
            assertEquals(1, stranger.members(), "the stranger's view");
            assertEquals(1, member.members(), "the member's view");
        }
    }

    @Test
    @DisplayName("a stranger speaking clear text to the group port without pause leaves no trace in the member's log: every message is dropped quietly, so nobody without the key can fill the journal")
    void strangerCannotFillTheJournal() throws Exception {
        InetAddress bind = InetAddress.getByName(ADDRESS);
        int[] ports = FreePorts.on(bind, 2);
        try (GossipNode member = startMember(bind, ports[0]);
             CapturedLog log = new CapturedLog(org.slf4j.Logger.ROOT_LOGGER_NAME);
             ClearTextStranger stranger = new ClearTextStranger("stranger", bind, ports[1],
                     List.of(new InetSocketAddress(bind, ports[0])))) {
            // Joining asks the seed, then merge rounds ask again every 1-2 s: a steady stream of clear text.
            Thread.sleep(4_000);
            assertEquals(1, member.members(), "the member's view");
            assertEquals(List.of(), log.atLeast(Level.WARN, MEMBER), "warnings and errors the stranger caused");
        }
    }

    private static GossipNode startMember(InetAddress bind, int port) throws Exception {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        var config = new GossipNode.Config(MEMBER, bind, port, List.of(new InetSocketAddress(bind, port)), "internal.demo",
                Duration.ofSeconds(4), Duration.ofSeconds(30));
        GossipNode member = GossipNode.start(config, key, TestMembers.random().controlPlane(MEMBER), r -> { });
        member.publish(Set.of(new EndpointRecord("api.internal.demo", ADDRESS, 6443)));
        return member;
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
