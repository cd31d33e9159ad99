package dev.sextant.housekeeping.discovery;

import dev.sextant.attestation.testkit.FreePorts;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EndpointDiscoveryTest {
    @TempDir
    Path dir;

    private GossipSettings settings(boolean enabled, int port, Path hosts, int joinPort) {
        return new GossipSettings(enabled, "demo", "127.0.0.1", port, List.of("127.0.0.1:" + port), hosts.toString(),
                Duration.ofSeconds(4), Duration.ofSeconds(30), 6443, joinPort, 2379);
    }

    @Test
    @DisplayName("a control plane publishes the API, its join service when one runs there, and its etcd member; a worker publishes nothing")
    void ownRecords() {
        var discovery = new EndpointDiscovery(settings(true, 7800, dir.resolve("hosts"), 30090));
        assertEquals(Set.of(new EndpointRecord("api.internal.demo", "10.0.0.5", 6443),
                        new EndpointRecord("join.internal.demo", "10.0.0.5", 30090),
                        new EndpointRecord("etcd-cp-1.internal.demo", "10.0.0.5", 2379)),
                discovery.ownRecords("cp-1", "10.0.0.5", true));
        assertEquals(Set.of(), discovery.ownRecords("worker-1", "10.0.0.6", false));
    }

    @Test
    @DisplayName("started with the group key from a ticket, the node joins and writes its records into the hosts file block")
    void keyToHostsFile() throws Exception {
        Path hosts = dir.resolve("hosts");
        Files.writeString(hosts, "127.0.0.1 localhost\n");
        int port = FreePorts.loopback();
        try (var discovery = new EndpointDiscovery(settings(true, port, hosts, 30090))) {
            discovery.start(new byte[32], "cp-1", true, TestMembers.random().controlPlane("cp-1"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && !Files.readString(hosts).contains("api.internal.demo")) {
                Thread.sleep(50);
            }
            assertTrue(Files.readString(hosts).contains("127.0.0.1\tapi.internal.demo etcd-cp-1.internal.demo join.internal.demo\n"),
                    Files.readString(hosts));
            assertEquals(List.of(new Endpoint("127.0.0.1", 30090)),
                    discovery.joinServices().endpoints());
        }
    }

    @Test
    @DisplayName("switched off, a group key changes nothing: no group, no hosts file")
    void disabledDoesNothing() throws Exception {
        Path hosts = dir.resolve("hosts");
        try (var discovery = new EndpointDiscovery(settings(false, 7800, hosts, 0))) {
            discovery.start(new byte[32], "cp-1", true, TestMembers.random().controlPlane("cp-1"));
            assertEquals(List.of(), List.copyOf(discovery.records()));
        }
        assertTrue(!Files.exists(hosts));
    }
}
