package dev.sextant.nodeboot.revocations;

import static dev.sextant.nodeboot.revocations.RevocationHandOffCluster.DOMAIN;
import static dev.sextant.nodeboot.revocations.RevocationHandOffCluster.await;
import static dev.sextant.nodeboot.revocations.RevocationHandOffCluster.hostsNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.etcd.testkit.Tmpfs;
import dev.sextant.housekeeping.discovery.EndpointDiscovery;
import dev.sextant.housekeeping.discovery.EndpointRecord;
import dev.sextant.housekeeping.discovery.GossipSettings;
import dev.sextant.housekeeping.discovery.TestMembers;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bootstrapper's hand-off of the revocation list, as it runs on a control plane
 * ({@link RevocationListHandOff}: its own etcd member on loopback, with the join service's client
 * certificate from the services directory), to real discovery members. The rows build on each other:
 * the list versions only rise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("The revocation list in the cluster store reaches every member through the control plane's discovery")
class RevocationListHandOffTest {
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration WITHIN = Duration.ofSeconds(15);
    private final EndpointRecord badRecord = new EndpointRecord("w-bad.kubelet." + DOMAIN, RevocationHandOffCluster.BAD_IP, 10250);
    private Path dir;
    private RevocationHandOffCluster c;
    private long badVersion = 1;

    @BeforeAll
    void start(@TempDir(factory = Tmpfs.class) Path dir) throws Exception {
        this.dir = dir;
        c = new RevocationHandOffCluster(dir, POLL);
    }

    @AfterAll
    void stop() throws Exception {
        if (c != null) {
            c.close();
        }
    }

    private void badAnnounces() throws Exception {
        c.bad.sendAndAwaitJudgement(c.bad.signed(c.badCredentials, badVersion++, Set.of(badRecord)), "w-0", WITHIN);
    }

    @Test
    @Order(1)
    @DisplayName("a list written to revocations/list reaches the control plane's discovery within a poll and from it every member, the worker too: the revoked member's names leave both hosts files")
    void newerListReachesEveryMember() throws Exception {
        badAnnounces();
        assertTrue(hostsNames(c.workerHosts).contains(badRecord.name()), "before the list: " + hostsNames(c.workerHosts));

        long start = System.nanoTime();
        c.store(c.cluster.revocations(1, TestMembers.keyOf(c.badCredentials)));
        assertTrue(await(WITHIN, () -> c.worker.revocationVersion() == 1 && !hostsNames(c.workerHosts).contains(badRecord.name())
                        && !hostsNames(c.controlPlaneHosts).contains(badRecord.name())),
                "control plane at list version " + c.controlPlane.revocationVersion() + ", worker at " + c.worker.revocationVersion()
                        + "; the worker's hosts: " + hostsNames(c.workerHosts));
        System.out.printf("FIGURE revocation hand-off: revocations/list written -> gone from the worker's hosts file in %d ms (poll %d ms)%n",
                (System.nanoTime() - start) / 1_000_000, POLL.toMillis());
        assertEquals(1, c.controlPlane.revocationVersion());
        assertTrue(hostsNames(c.workerHosts).contains("api." + DOMAIN), "the control plane's own names stay");
    }

    @Test
    @Order(2)
    @DisplayName("a newer list replaces it; an equal or lower one written after it is handed on but not applied: every member keeps the highest version, and the revoked key stays revoked")
    void equalOrLowerListIgnored() throws Exception {
        c.store(c.cluster.revocations(3, TestMembers.keyOf(c.badCredentials)));
        assertTrue(await(WITHIN, () -> c.controlPlane.revocationVersion() == 3 && c.worker.revocationVersion() == 3),
                "list version " + c.controlPlane.revocationVersion());

        c.store(c.cluster.revocations(3)); // the same version, revoking nobody
        RevocationListPoller another = new RevocationListPoller(new ControlPlaneRevocationList(c.settings), c.controlPlane);
        assertFalse(another.syncOnce(), "an equal version is not applied");
        c.store(c.cluster.revocations(2)); // lower
        assertFalse(another.syncOnce(), "a lower version is not applied");
        Thread.sleep(5 * POLL.toMillis()); // the hand-off's own polls saw both
        assertEquals(3, c.controlPlane.revocationVersion());
        assertEquals(3, c.worker.revocationVersion());
        badAnnounces();
        assertFalse(hostsNames(c.workerHosts).contains(badRecord.name()), "w-bad is back: " + hostsNames(c.workerHosts));

        c.store(c.cluster.revocations(4, TestMembers.keyOf(c.badCredentials)));
        assertTrue(await(WITHIN, () -> c.worker.revocationVersion() == 4), "list version " + c.worker.revocationVersion());
    }

    @Test
    @Order(3)
    @DisplayName("before discovery runs nothing is handed on and nothing marked seen: the first look once it runs hands the stored list on")
    void nothingBeforeDiscoveryRuns() throws Exception {
        // A control plane alone in a group of its own, so that only the poller can bring it the list.
        InetAddress ip = InetAddress.getByName("127.0.0.44");
        int port = FreePorts.on(ip);
        Path hosts = Files.writeString(dir.resolve("cp-9.hosts"), "127.0.0.1 localhost\n");
        try (EndpointDiscovery alone = new EndpointDiscovery(new GossipSettings(true, "demo", ip.getHostAddress(), port,
                List.of(ip.getHostAddress() + ":" + port), hosts.toString(), Duration.ofSeconds(4), Duration.ofSeconds(30), 6443, 0, 2379));
             ControlPlaneRevocationList source = new ControlPlaneRevocationList(c.settings)) {
            RevocationListPoller poller = new RevocationListPoller(source, alone);
            assertFalse(poller.syncOnce(), "discovery does not run yet");
            byte[] otherGroup = new byte[32];
            new SecureRandom().nextBytes(otherGroup);
            alone.start(otherGroup, "cp-9", true, c.cluster.controlPlane("cp-9"));
            assertTrue(poller.syncOnce(), "the stored list, handed on once discovery runs");
            assertEquals(4, alone.revocationVersion());
            assertFalse(poller.syncOnce(), "the same revision is not handed on twice");
        }
    }
}
