package dev.sextant.nodeboot.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.nodeboot.endpointdiscovery.EndpointRecord;
import dev.sextant.nodeboot.endpointdiscovery.GossipNode;
import dev.sextant.nodeboot.endpointdiscovery.GroupIntruder;
import dev.sextant.nodeboot.endpointdiscovery.HostsFile;
import dev.sextant.nodeboot.endpointdiscovery.RecordTable;
import dev.sextant.nodeboot.endpointdiscovery.TestMembers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on endpoint discovery by an attested member gone bad: it holds the group key, so it is
 * in the group (on the real sealed JGroups stack, over loopback) and sends whatever announcement
 * it likes. The victim is a control plane writing its hosts file. After each forged announcement
 * the intruder sends one genuine one of its own (a fresh version of {@code w-1.internal.demo});
 * JGroups delivers one sender's messages in order, so once that marker is in the victim's view the
 * forgery has been judged, and it must be in neither the view nor the hosts file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on endpoint discovery: records carry proof of their owner")
class DiscoveryAttacksTest {
    private static final String DOMAIN = "internal.demo";
    private static final String LOOPBACK = "127.0.0.1";

    private final TestMembers cluster = TestMembers.random();
    private final byte[] groupKey = new byte[32];
    private final MemberCredentials victimCredentials = cluster.controlPlane("cp-0");
    private final MemberCredentials peerCredentials = cluster.controlPlane("cp-1");
    private final MemberCredentials intruderCredentials = cluster.worker("w-1");
    private GossipNode victim;
    private GossipNode peer;
    private GroupIntruder intruder;
    private Path hosts;
    private long markerVersion = 1;

    @BeforeAll
    void startGroup(@TempDir Path dir) throws Exception {
        new SecureRandom().nextBytes(groupKey);
        hosts = dir.resolve("hosts");
        Files.writeString(hosts, "127.0.0.1 localhost\n");
        HostsFile hostsFile = new HostsFile(hosts);
        InetAddress lo = InetAddress.getLoopbackAddress();
        int[] ports = FreePorts.loopback(3);
        List<InetSocketAddress> seeds = List.of(new InetSocketAddress(lo, ports[0]), new InetSocketAddress(lo, ports[1]));
        victim = GossipNode.start(config("cp-0", ports[0], seeds), groupKey, victimCredentials, records -> {
            try {
                hostsFile.update(RecordTable.addressesByName(records));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        peer = GossipNode.start(config("cp-1", ports[1], seeds), groupKey, peerCredentials, r -> { });
        intruder = new GroupIntruder("w-1", lo, ports[2], seeds, groupKey, DOMAIN);
        victim.publish(Set.of(record("api"), record("cp-0.datastore")));
        peer.publish(Set.of(record("cp-1.datastore")));
        assertTrue(await(() -> victim.members() == 3 && victim.records().contains(record("cp-1.datastore"))),
                "the group did not form: " + victim.records());
    }

    @AfterAll
    void stop() {
        for (AutoCloseable c : new AutoCloseable[] {intruder, peer, victim}) {
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
    @DisplayName("a worker publishing the API name (api.internal.CLUSTER) is refused: control planes only")
    void workerClaimingTheApiNameIsRefused() throws Exception {
        // Another port than the control plane's own api record, so the worker's copy would stand out.
        EndpointRecord api = new EndpointRecord("api." + DOMAIN, LOOPBACK, 7443);
        assertRefused(intruder.signed(intruderCredentials, next(), Set.of(api)), api, null);
    }

    @Test
    @DisplayName("a worker publishing the join service name is refused: control planes only")
    void workerClaimingTheJoinNameIsRefused() throws Exception {
        EndpointRecord join = new EndpointRecord("join." + DOMAIN, LOOPBACK, 30090);
        assertRefused(intruder.signed(intruderCredentials, next(), Set.of(join)), join, "join.internal.demo");
    }

    @Test
    @DisplayName("records signed with the intruder's key under another member's certificate are refused: the signature is not the certified key's")
    void recordsUnderAnotherMembersCertificateAreRefused() throws Exception {
        MemberCredentials stolenCertificate = new MemberCredentials(intruderCredentials.privateKey(),
                peerCredentials.certificate(), peerCredentials.caPublicKey());
        EndpointRecord forged = record("cp-1.web");
        assertRefused(intruder.signed(stolenCertificate, next(), Set.of(forged)), forged, "cp-1.web");
    }

    @Test
    @DisplayName("a certificate from a CA of the intruder's making (claiming control plane cp-9) is refused: not the cluster's discovery CA")
    void forgedCertificateIsRefused() throws Exception {
        MemberCredentials forgedCa = TestMembers.random().controlPlane("cp-9");
        EndpointRecord forged = record("cp-9.datastore");
        assertRefused(intruder.signed(forgedCa, next(), Set.of(record("api"), forged)), forged, "cp-9.datastore");
    }

    @Test
    @DisplayName("a certificate by the cluster's CA for another cluster is refused: the cluster ID must be ours")
    void certificateForAnotherClusterIsRefused() throws Exception {
        // Same CA key, other cluster ID: what a CA seed reused across clusters would allow.
        TestMembers otherCluster = new TestMembers(seedOf(cluster), new byte[32]);
        MemberCredentials other = otherCluster.controlPlane("cp-7");
        EndpointRecord forged = record("cp-7.datastore");
        assertRefused(intruder.signed(other, next(), Set.of(forged)), forged, "cp-7.datastore");
    }

    @Test
    @DisplayName("an expired member certificate is refused")
    void expiredCertificateIsRefused() throws Exception {
        MemberCredentials expired = cluster.member(MemberKey.generate(new SecureRandom()), "cp-8", MemberRole.CONTROL_PLANE,
                Instant.now().minus(Duration.ofDays(3)), Duration.ofDays(1));
        EndpointRecord forged = record("cp-8.datastore");
        assertRefused(intruder.signed(expired, next(), Set.of(forged)), forged, "cp-8.datastore");
    }

    @Test
    @DisplayName("a replayed older announcement of another member (captured earlier) is refused: its version is not the newest")
    void replayedOlderAnnouncementIsRefused() throws Exception {
        // What cp-1 announced before its current version: validly signed by cp-1, just old.
        EndpointRecord old = record("cp-1.old");
        byte[] captured = intruder.signed(peerCredentials, 1, Set.of(old));
        assertRefused(captured, old, "cp-1.old");
        assertTrue(victim.records().contains(record("cp-1.datastore")), "cp-1's current records stay");
    }

    @Test
    @DisplayName("a replayed withdrawal of another member (the empty announcement a node sends as it leaves, captured earlier) is refused: its current records stay")
    void replayedWithdrawalIsRefused() throws Exception {
        byte[] captured = intruder.signed(peerCredentials, 1, Set.of());
        sendThenMarker(captured);
        assertTrue(victim.records().contains(record("cp-1.datastore")), "cp-1's records were withdrawn: " + victim.records());
    }

    @Test
    @DisplayName("a member pointing its own name at another machine's address is refused: records carry the sender's address")
    void ownNameAtAnotherAddressIsRefused() throws Exception {
        EndpointRecord elsewhere = new EndpointRecord("w-1.internal.demo", "10.9.9.9", 443);
        assertRefused(intruder.signed(intruderCredentials, next(), Set.of(elsewhere)), elsewhere, "10.9.9.9");
    }

    @Test
    @DisplayName("a control plane publishing another control plane's datastore name is refused: NODE.datastore is NODE's own")
    void anotherNodesDatastoreNameIsRefused() throws Exception {
        MemberCredentials rogueControlPlane = cluster.controlPlane("cp-5");
        EndpointRecord forged = record("cp-0.datastore");
        // cp-0 publishes the same record itself, so look for cp-5's attempt by what only it would add.
        EndpointRecord alsoForged = record("cp-4.datastore");
        assertRefused(intruder.signed(rogueControlPlane, next(), Set.of(forged, alsoForged)), alsoForged, "cp-4.datastore");
    }

    @Test
    @DisplayName("an announcement altered after signing (records swapped in) is refused: the signature covers them")
    void alteredAnnouncementIsRefused() throws Exception {
        byte[] genuine = intruder.signed(intruderCredentials, next(), Set.of(record("w-1.aaa")));
        String text = new String(genuine, java.nio.charset.StandardCharsets.ISO_8859_1).replace("w-1.aaa", "w-1.bbb");
        byte[] altered = text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertRefused(altered, record("w-1.bbb"), "w-1.bbb");
    }

    /**
     * Sends {@code forged}, then a genuine marker; once the marker is in, {@code forgedRecord} must be
     * nowhere, and the hosts file must not contain {@code hostsText} (null where a genuine record
     * already lists that name, as api.internal.demo).
     */
    private void assertRefused(byte[] forged, EndpointRecord forgedRecord, String hostsText) throws Exception {
        long version = sendThenMarker(forged);
        assertFalse(victim.records().contains(forgedRecord), "accepted: " + forgedRecord);
        assertTrue(await(() -> readHosts().contains("w-1.m" + version)), "the hosts file was not rewritten: " + readHosts());
        if (hostsText != null) {
            assertFalse(readHosts().contains(hostsText), "the hosts file lists " + hostsText + ": " + readHosts());
        }
        assertEquals(Set.of(LOOPBACK), RecordTable.addressesByName(victim.records()).get("api." + DOMAIN),
                "api.internal.demo lists only the control planes");
    }

    /**
     * Sends {@code forged}, then a genuine marker, and waits for the marker: the victim has handled
     * {@code forged} by then. Returns the marker's version.
     */
    private long sendThenMarker(byte[] forged) throws Exception {
        intruder.send(forged);
        long version = next();
        EndpointRecord marker = new EndpointRecord("w-1.m" + version + "." + DOMAIN, LOOPBACK, 0);
        intruder.send(intruder.signed(intruderCredentials, version, Set.of(marker)));
        assertTrue(await(() -> victim.records().contains(marker)), "the intruder's genuine marker never arrived: "
                + victim.records());
        return version;
    }

    private long next() {
        // Publish times, as GossipNode's versions are; each call newer than the last.
        markerVersion = Math.max(markerVersion + 1, System.currentTimeMillis());
        return markerVersion;
    }

    private String readHosts() {
        try {
            return Files.readString(hosts);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static byte[] seedOf(TestMembers members) {
        return members.caSeed();
    }

    private static EndpointRecord record(String label) {
        return new EndpointRecord(label + "." + DOMAIN, LOOPBACK, label.equals("api") ? 6443 : 2379);
    }

    private static GossipNode.Config config(String name, int port, List<InetSocketAddress> seeds) {
        return new GossipNode.Config(name, InetAddress.getLoopbackAddress(), port, seeds, DOMAIN, Duration.ofSeconds(4),
                Duration.ofSeconds(30));
    }

    private static boolean await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }
}
