package dev.sextant.housekeeping.discovery;

import dev.sextant.attestation.testkit.FreePorts;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Three nodes in one JVM on loopback: two hold the group key, one does not. No root needed. */
class SealedGroupTest {
    @Test
    @DisplayName("key holders see each other's records (and the join services through GossipDiscovery); a process with another key sees and is seen by no one")
    void onlyKeyHoldersShareRecords() throws Exception {
        byte[] key = random();
        InetAddress lo = InetAddress.getLoopbackAddress();
        int[] ports = FreePorts.loopback(3);
        List<InetSocketAddress> seeds = List.of(new InetSocketAddress(lo, ports[0]), new InetSocketAddress(lo, ports[1]));
        // Records point at the address the members send from (loopback here), as the receivers demand.
        EndpointRecord a = new EndpointRecord("join.internal.demo", "127.0.0.1", 30090);
        EndpointRecord b = new EndpointRecord("api.internal.demo", "127.0.0.1", 6443);
        EndpointRecord forged = new EndpointRecord("etcd-x.internal.demo", "127.0.0.1", 2379);
        TestMembers members = TestMembers.random();
        try (GossipNode nodeA = GossipNode.start(config("a", ports[0], seeds), key, members.controlPlane("a"), r -> { });
             GossipNode nodeB = GossipNode.start(config("b", ports[1], seeds), key, members.controlPlane("b"), r -> { });
             GossipNode intruder = GossipNode.start(config("x", ports[2], seeds), random(), members.controlPlane("x"),
                     r -> { })) {
            nodeA.publish(Set.of(a));
            nodeB.publish(Set.of(b));
            intruder.publish(Set.of(forged));
            assertTrue(wait(() -> nodeA.records().equals(Set.of(a, b)) && nodeB.records().equals(Set.of(a, b))),
                    "A: " + nodeA.records() + " B: " + nodeB.records());
            Thread.sleep(3000);
            assertFalse(nodeA.records().contains(forged) || nodeB.records().contains(forged));
            assertEquals(Set.of(forged), intruder.records());
            assertEquals(2, nodeA.members());
            assertEquals(List.of(new Endpoint("127.0.0.1", 30090)),
                    new GossipDiscovery(nodeB::records, "join.internal.demo").endpoints());
        }
    }

    private static GossipNode.Config config(String name, int port, List<InetSocketAddress> seeds) {
        return new GossipNode.Config(name, InetAddress.getLoopbackAddress(), port, seeds, "internal.demo",
                Duration.ofSeconds(4), Duration.ofSeconds(30));
    }

    private static boolean wait(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }

    private static byte[] random() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return key;
    }
}
