package dev.sextant.nodeboot.attacks;

import static dev.sextant.nodeboot.revocations.RevocationHandOffCluster.DOMAIN;
import static dev.sextant.nodeboot.revocations.RevocationHandOffCluster.await;
import static dev.sextant.nodeboot.revocations.RevocationHandOffCluster.hostsNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.sextant.etcd.testkit.Tmpfs;
import dev.sextant.housekeeping.discovery.EndpointRecord;
import dev.sextant.housekeeping.discovery.TestMembers;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.RevocationList;
import dev.sextant.nodeboot.revocations.RevocationHandOffCluster;
import dev.sextant.nodeboot.revocations.RevocationListHandOff;
import dev.sextant.nodeboot.revocations.RevocationListPoller;
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
 * Attacks on the way the revocation list reaches discovery: through the cluster store, which is not
 * trusted with it (whoever holds a client certificate of the cluster's etcd CA can write
 * {@code revocations/list}), and by a revoked member that keeps the group key and its certificate.
 * Each row goes through the control plane's real hand-off ({@link RevocationListHandOff}, its own etcd member)
 * and real discovery members, and looks at what every member applied and lists.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("Attacks on the revocation list's way from the cluster store to every member")
class RevocationHandOffAttacksTest {
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration WITHIN = Duration.ofSeconds(15);
    private final EndpointRecord badRecord = new EndpointRecord("w-bad.kubelet." + DOMAIN, RevocationHandOffCluster.BAD_IP, 10250);
    private RevocationHandOffCluster c;
    private CapturedLog log;

    @BeforeAll
    void start(@TempDir(factory = Tmpfs.class) Path dir) throws Exception {
        log = new CapturedLog(RevocationListPoller.class);
        c = new RevocationHandOffCluster(dir, POLL);
    }

    @AfterAll
    void stop() throws Exception {
        if (c != null) {
            c.close();
        }
        if (log != null) {
            log.close();
        }
    }

    @Test
    @Order(1)
    @DisplayName("a list written into etcd by someone without the discovery CA (this cluster's ID, a high version, revoking the control plane and a worker) is refused by every member: none applies it, every name stays listed, and the refusal is logged")
    void listWithoutTheDiscoveryCaIsRefused() throws Exception {
        byte[] otherCa = new byte[32];
        new SecureRandom().nextBytes(otherCa);
        byte[] forged = new DiscoveryCa(otherCa).signRevocationList(RevocationList.of(c.cluster.clusterId(), 1_000_000,
                List.of(TestMembers.keyOf(c.controlPlaneCredentials), TestMembers.keyOf(c.badCredentials))));
        c.store(forged);
        assertTrue(await(WITHIN, () -> !log.atLeast(Level.ERROR, "refusing revocations/list").isEmpty()),
                "the control plane's hand-off did not judge the stored list: " + log.lines());
        Thread.sleep(10 * POLL.toMillis()); // what an applied list would have done by now (it spreads in under a second)
        assertEquals(0, c.controlPlane.revocationVersion(), "the control plane applied the forged list");
        assertEquals(0, c.worker.revocationVersion(), "the worker applied the forged list");
        assertTrue(hostsNames(c.workerHosts).containsAll(Set.of("api." + DOMAIN, "etcd-cp-0." + DOMAIN)),
                "the control plane's names left the worker's hosts file: " + hostsNames(c.workerHosts));
        assertTrue(log.atLeast(Level.ERROR, "refusing revocations/list").get(0).contains("keeping list version 0"),
                log.atLeast(Level.ERROR, "refusing").toString());

        // The refusal blocks nothing: the genuine list written after it is applied everywhere.
        c.store(c.cluster.revocations(1));
        assertTrue(await(WITHIN, () -> c.worker.revocationVersion() == 1), "the genuine list after the forged one");
    }

    @Test
    @Order(2)
    @DisplayName("a revoked member's records replayed into discovery after the list (its own signed announcement from before, and a newer one) are dropped by every member: its key is on the list the control plane took from etcd")
    void revokedMembersReplayedRecordsAreDropped() throws Exception {
        byte[] before = c.bad.signed(c.badCredentials, 5, Set.of(badRecord));
        c.bad.sendAndAwaitJudgement(before, "w-0", WITHIN);
        assertTrue(hostsNames(c.workerHosts).contains(badRecord.name()), "before the list: " + hostsNames(c.workerHosts));

        c.store(c.cluster.revocations(2, TestMembers.keyOf(c.badCredentials)));
        assertTrue(await(WITHIN, () -> c.worker.revocationVersion() == 2 && !hostsNames(c.workerHosts).contains(badRecord.name())),
                "worker at list version " + c.worker.revocationVersion() + ", hosts " + hostsNames(c.workerHosts));

        c.bad.sendAndAwaitJudgement(before, "w-0", WITHIN); // the replay
        c.bad.sendAndAwaitJudgement(before, "cp-0", WITHIN);
        assertFalse(hostsNames(c.workerHosts).contains(badRecord.name()), "the worker lists the replayed record: " + hostsNames(c.workerHosts));
        assertFalse(hostsNames(c.controlPlaneHosts).contains(badRecord.name()), "the control plane lists the replayed record");
        c.bad.sendAndAwaitJudgement(c.bad.signed(c.badCredentials, 6, Set.of(badRecord)), "w-0", WITHIN); // and a newer one
        assertFalse(hostsNames(c.workerHosts).contains(badRecord.name()), "the worker lists w-bad's newer announcement");
    }
}
