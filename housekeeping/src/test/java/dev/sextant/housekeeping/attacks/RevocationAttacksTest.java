package dev.sextant.housekeeping.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.housekeeping.discovery.EndpointRecord;
import dev.sextant.housekeeping.discovery.GossipNode;
import dev.sextant.housekeeping.discovery.GroupIntruder;
import dev.sextant.housekeeping.discovery.HostsFile;
import dev.sextant.housekeeping.discovery.RecordTable;
import dev.sextant.housekeeping.discovery.TestMembers;
import dev.sextant.keys.member.MemberCredentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on the revocation list in endpoint discovery, by a member that holds the group key (a
 * revoked node keeps it: the group key is not rotated) and sends whatever announcements it likes,
 * on the real sealed JGroups stack over loopback. The victim is a control plane writing its hosts
 * file; the honest peer is the control plane that publishes the cluster's lists, as the holder of
 * the re-attestation duty will. The lists are the discovery CA's own (a real {@code DiscoveryCa}),
 * cumulative, each version one higher, as the holder issues them.
 *
 * <p>Each row observes, like {@code DiscoveryAttacksTest} in node-boot, what the victim accepted (the
 * record sets it handed its listener while judging, its records and hosts file after) and why it
 * refused (the reason it logged), and the version of the list it applied. The intruder learns that
 * the victim has judged an announcement from the victim's answer to a request it sends right after
 * ({@link GroupIntruder#sendAndAwaitJudgement}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on the revocation list: a revoked member stays out of discovery")
class RevocationAttacksTest {
    private static final String DOMAIN = "internal.demo";
    private static final String VICTIM_IP = "127.0.0.31";
    private static final String PEER_IP = "127.0.0.32";
    private static final String INTRUDER_IP = "127.0.0.33";
    private static final Duration JUDGED_WITHIN = Duration.ofSeconds(20);

    private final TestMembers cluster = TestMembers.random();
    private final byte[] groupKey = new byte[32];
    /** The honest control plane's: the forged list of the last row names its key, which only an applied list could drop. */
    private final MemberCredentials peerCredentials = cluster.controlPlane("cp-1");
    private final EndpointRecord peerRecord = new EndpointRecord("etcd-cp-1." + DOMAIN, PEER_IP, 2379);
    private final List<SortedSet<EndpointRecord>> victimSaw = new CopyOnWriteArrayList<>();
    private RefusedAnnouncements victimRefused;
    private GossipNode victim;
    private GossipNode peer;
    private GroupIntruder intruder;
    private Path hosts;
    private long lastVersion = 1;
    /** The keys the cluster has revoked so far, and the version of its newest list. */
    private final List<byte[]> revoked = new ArrayList<>();
    private long listVersion;

    @BeforeAll
    void startGroup(@TempDir Path dir) throws Exception {
        victimRefused = RefusedAnnouncements.by("cp-0");
        new SecureRandom().nextBytes(groupKey);
        hosts = dir.resolve("hosts");
        Files.writeString(hosts, "127.0.0.1 localhost\n");
        HostsFile hostsFile = new HostsFile(hosts);
        InetAddress victimIp = InetAddress.getByName(VICTIM_IP);
        InetAddress peerIp = InetAddress.getByName(PEER_IP);
        InetAddress intruderIp = InetAddress.getByName(INTRUDER_IP);
        int victimPort = FreePorts.on(victimIp);
        int peerPort = FreePorts.on(peerIp);
        List<InetSocketAddress> seeds = List.of(new InetSocketAddress(victimIp, victimPort), new InetSocketAddress(peerIp, peerPort));
        victim = GossipNode.start(config("cp-0", victimIp, victimPort, seeds), groupKey, cluster.controlPlane("cp-0"), records -> {
            victimSaw.add(records);
            try {
                hostsFile.update(RecordTable.addressesByName(records));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        peer = GossipNode.start(config("cp-1", peerIp, peerPort, seeds), groupKey, peerCredentials, r -> { });
        intruder = new GroupIntruder("intruder", intruderIp, FreePorts.on(intruderIp), seeds, groupKey, DOMAIN);
        victim.publish(Set.of(new EndpointRecord("api." + DOMAIN, VICTIM_IP, 6443)));
        peer.publish(Set.of(peerRecord));
        assertTrue(await(() -> victim.members() == 3 && hostsList(peerRecord)),
                "the group did not form: " + victim.records() + "\n" + readHosts());
    }

    @AfterAll
    void stop() {
        for (AutoCloseable c : new AutoCloseable[] {victimRefused, intruder, peer, victim}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // closing the rest matters more
            }
        }
    }

    @Test
    @DisplayName("a revoked member's records leave the victim's table and hosts file when the list arrives, and its announcement replayed into discovery is refused: its key is on the list")
    void revokedMembersReplayedRecordsAreDropped() throws Exception {
        MemberCredentials w1 = cluster.worker("w-1");
        EndpointRecord own = intruderRecord("w-1.kubelet", 10250);
        byte[] before = intruder.signed(w1, next(), Set.of(own));
        assertTrue(judge(before).victimSaw().stream().anyMatch(r -> r.contains(own)), "w-1's record before its revocation");
        assertTrue(hostsList(own), "the hosts file before the revocation:\n" + readHosts());

        long version = revokeThroughThePeer(w1);
        assertTrue(await(() -> victim.revocationVersion() == version && !hostsList(own)),
                "the victim applied list version " + victim.revocationVersion() + "; its hosts file:\n" + readHosts());
        assertFalse(victim.records().contains(own), "the victim holds " + own);

        // With no entry left under w-1's name, the record table's versions alone would take its newest announcement back.
        assertRefused(before, "w-1's key is on the revocation list (version " + version + ")", own);
    }

    @Test
    @DisplayName("a revoked member's new announcement (a newer version, its certificate still valid) is refused: no later record of a listed key is accepted")
    void revokedMembersNewAnnouncementIsRefused() throws Exception {
        MemberCredentials w2 = cluster.worker("w-2");
        EndpointRecord own = intruderRecord("w-2.kubelet", 10250);
        judge(intruder.signed(w2, next(), Set.of(own)));
        long version = revokeThroughThePeer(w2);
        assertTrue(await(() -> victim.revocationVersion() == version && !hostsList(own)), readHosts());
        assertRefused(intruder.signed(w2, next(), Set.of(own, intruderRecord("w-2.web", 443))),
                "w-2's key is on the revocation list", own, intruderRecord("w-2.web", 443));
    }

    @Test
    @DisplayName("a worker publishing a revocation list, even one the discovery CA signed, is refused: control planes only, and the victim applies nothing")
    void workerPublishingARevocationListIsRefused() throws Exception {
        long applied = victim.revocationVersion();
        byte[] list = cluster.revocations(listVersion + 1, TestMembers.keyOf(cluster.worker("bystander")));
        EndpointRecord own = intruderRecord("w-3.kubelet", 10250);
        assertRefused(intruder.signedWithRevocations(cluster.worker("w-3"), next(), Set.of(own), list),
                "w-3 is certified as a worker and may not publish revocations.internal.demo (control planes only)", own);
        assertEquals(applied, victim.revocationVersion(), "the list version the victim applied");
    }

    @Test
    @DisplayName("an older revocation list (genuine, captured earlier) published by a control plane does not un-revoke: the victim keeps the highest version and still refuses the revoked member")
    void olderRevocationListDoesNotUnrevoke() throws Exception {
        MemberCredentials w4 = cluster.worker("w-4");
        EndpointRecord own = intruderRecord("w-4.kubelet", 10250);
        judge(intruder.signed(w4, next(), Set.of(own)));
        long withoutW4 = revokeThroughThePeer();
        byte[] captured = cluster.revocations(withoutW4, revoked.toArray(byte[][]::new));
        long withW4 = revokeThroughThePeer(w4);
        assertTrue(await(() -> victim.revocationVersion() == withW4 && !hostsList(own)), readHosts());

        // A control plane gone bad (or a lagging one) passes on the list from before w-4's revocation.
        EndpointRecord rogue = intruderRecord("cp-9.web", 443);
        Judgement passedOn = judge(intruder.signedWithRevocations(cluster.controlPlane("cp-9"), next(), Set.of(rogue), captured));
        assertEquals(List.of(), passedOn.victimRefused(), "a control plane may publish a list, an older one too");
        assertEquals(withW4, victim.revocationVersion(), "the list version the victim applied");
        assertRefused(intruder.signed(w4, next(), Set.of(own)), "w-4's key is on the revocation list (version " + withW4 + ")", own);
    }

    @Test
    @DisplayName("a revocation list signed by another cluster's CA, carrying this cluster's ID, revoking the honest control plane, is refused: not this cluster's discovery CA")
    void listOfAnotherClustersCaIsRefused() throws Exception {
        long applied = victim.revocationVersion();
        byte[] otherCa = new byte[32];
        new SecureRandom().nextBytes(otherCa);
        byte[] forged = new TestMembers(otherCa, cluster.clusterId()).revocations(listVersion + 100,
                TestMembers.keyOf(peerCredentials));
        EndpointRecord rogue = intruderRecord("cp-8.web", 443);
        assertRefused(intruder.signedWithRevocations(cluster.controlPlane("cp-8"), next(), Set.of(rogue), forged),
                "cp-8's revocations.internal.demo: revocation list is not signed by this cluster's discovery CA", rogue);
        assertEquals(applied, victim.revocationVersion(), "the list version the victim applied");
        assertTrue(hostsList(peerRecord), "the honest control plane's record is still listed:\n" + readHosts());
    }

    /** The peer publishes the next version of the cluster's list, adding {@code members}' keys; returns its version. */
    private long revokeThroughThePeer(MemberCredentials... members) {
        for (MemberCredentials m : members) {
            revoked.add(TestMembers.keyOf(m));
        }
        listVersion++;
        assertTrue(peer.publishRevocations(cluster.revocations(listVersion, revoked.toArray(byte[][]::new))));
        return listVersion;
    }

    /** What the victim did while it judged one announcement: the record sets it handed its listener, why it refused. */
    private record Judgement(List<SortedSet<EndpointRecord>> victimSaw, List<String> victimRefused) {
    }

    private Judgement judge(byte[] announcement) throws Exception {
        int saw = victimSaw.size();
        List<String> refusals = victimRefused.reasons();
        int refused = refusals.size();
        intruder.sendAndAwaitJudgement(announcement, "cp-0", JUDGED_WITHIN);
        return new Judgement(List.copyOf(victimSaw.subList(saw, victimSaw.size())),
                List.copyOf(refusals.subList(refused, refusals.size())));
    }

    /** The victim refused {@code announcement} saying {@code reason}, and accepted none of {@code forged}. */
    private void assertRefused(byte[] announcement, String reason, EndpointRecord... forged) throws Exception {
        Judgement judgement = judge(announcement);
        for (EndpointRecord f : forged) {
            for (SortedSet<EndpointRecord> records : judgement.victimSaw()) {
                assertFalse(records.contains(f), "the victim accepted " + f + ": " + records);
            }
            assertFalse(victim.records().contains(f), "the victim holds " + f + ": " + victim.records());
            assertFalse(hostsList(f), "the hosts file lists " + f.name() + ":\n" + readHosts());
        }
        assertTrue(judgement.victimRefused().stream().anyMatch(m -> m.contains(reason)),
                "the victim's refusals: " + judgement.victimRefused());
    }

    private static EndpointRecord intruderRecord(String label, int port) {
        return new EndpointRecord(label + "." + DOMAIN, INTRUDER_IP, port);
    }

    private long next() {
        lastVersion = Math.max(lastVersion + 1, System.currentTimeMillis());
        return lastVersion;
    }

    private boolean hostsList(EndpointRecord r) {
        return readHosts().lines().map(line -> line.split("\t"))
                .anyMatch(f -> f.length == 2 && f[0].equals(r.address()) && List.of(f[1].split(" ")).contains(r.name()));
    }

    private String readHosts() {
        try {
            return Files.readString(hosts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static GossipNode.Config config(String name, InetAddress bind, int port, List<InetSocketAddress> seeds) {
        return new GossipNode.Config(name, bind, port, seeds, DOMAIN, Duration.ofSeconds(4), Duration.ofSeconds(30));
    }

    private static boolean await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }
}
