package dev.sextant.nodeboot.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.housekeeping.discovery.EndpointRecord;
import dev.sextant.housekeeping.discovery.GossipNode;
import dev.sextant.housekeeping.discovery.GroupIntruder;
import dev.sextant.housekeeping.discovery.HostsFile;
import dev.sextant.housekeeping.discovery.RecordTable;
import dev.sextant.housekeeping.discovery.TestMembers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
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
import org.slf4j.LoggerFactory;

/**
 * Attacks on endpoint discovery by an attested member gone bad: it holds the group key, so it is
 * in the group (on the real sealed JGroups stack, over loopback) and sends whatever announcement
 * it likes. The victim is a control plane writing its hosts file.
 *
 * <p>Each row observes what the victim accepted: every record set the victim handed its listener
 * while the forgery was judged, its record table and its hosts file afterwards; and why it refused:
 * the reason it logged (none for a replay, which passes every check of the announcement itself and
 * is refused by the record table's versions). The intruder learns
 * that the victim has judged the forgery from the victim's answer to a request it sends right after
 * (see {@link GroupIntruder#sendAndAwaitJudgement}), and sends nothing in between, since the record
 * table keeps one entry per sender and any later announcement of the intruder's would replace an
 * accepted forgery. Victim, honest peer and intruder listen on three different loopback addresses,
 * so a forged record is told apart from an honest one by its address, and a record's address
 * matches its sender's only where the row says so: each forgery is refused by the one rule its row
 * names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on endpoint discovery: records carry proof of their owner")
class DiscoveryAttacksTest {
    private static final String DOMAIN = "internal.demo";
    private static final String VICTIM_IP = "127.0.0.21";
    private static final String PEER_IP = "127.0.0.22";
    private static final String INTRUDER_IP = "127.0.0.23";
    private static final Duration JUDGED_WITHIN = Duration.ofSeconds(20);

    private final TestMembers cluster = TestMembers.random();
    private final byte[] groupKey = new byte[32];
    private final MemberCredentials victimCredentials = cluster.controlPlane("cp-0");
    private final MemberCredentials peerCredentials = cluster.controlPlane("cp-1");
    private final MemberCredentials intruderCredentials = cluster.worker("w-1");
    private final EndpointRecord peerRecord = new EndpointRecord("etcd-cp-1." + DOMAIN, PEER_IP, 2379);
    /** Every record set the victim handed its listener, in order. */
    private final List<SortedSet<EndpointRecord>> victimSaw = new CopyOnWriteArrayList<>();
    private GossipNode victim;
    private GossipNode peer;
    private GroupIntruder intruder;
    private Path hosts;
    private long lastVersion = 1;
    /**
     * Why the victim ignored announcements, as it logs them. JGroups names the threads that deliver a
     * member's messages after the member, so the peer's refusals of the same forgeries are told apart.
     */
    private final List<String> victimRefusals = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> victimLog = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            if (event.getThreadName().endsWith(",cp-0") && event.getFormattedMessage().contains("ignored an announcement")) {
                victimRefusals.add(event.getFormattedMessage());
            }
        }
    };

    @BeforeAll
    void startGroup(@TempDir Path dir) throws Exception {
        victimLog.start();
        gossipLogger().addAppender(victimLog);
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
        victim = GossipNode.start(config("cp-0", victimIp, victimPort, seeds), groupKey, victimCredentials, records -> {
            victimSaw.add(records);
            try {
                hostsFile.update(RecordTable.addressesByName(records));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        peer = GossipNode.start(config("cp-1", peerIp, peerPort, seeds), groupKey, peerCredentials, r -> { });
        intruder = new GroupIntruder("w-1", intruderIp, FreePorts.on(intruderIp), seeds, groupKey, DOMAIN);
        victim.publish(Set.of(new EndpointRecord("api." + DOMAIN, VICTIM_IP, 6443),
                new EndpointRecord("etcd-cp-0." + DOMAIN, VICTIM_IP, 2379)));
        peer.publish(Set.of(peerRecord));
        assertTrue(await(() -> victim.members() == 3 && hostsList(peerRecord)),
                "the group did not form: " + victim.records() + "\n" + readHosts());
    }

    @AfterAll
    void stop() {
        gossipLogger().detachAppender(victimLog);
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
    @DisplayName("the intruder's genuine record (its own name at its own address) is accepted: the rows' observation shows an accepted announcement")
    void genuineRecordIsAccepted() throws Exception {
        EndpointRecord genuine = intruderRecord("w-1.genuine", 443);
        Judgement judgement = judge(intruder.signed(intruderCredentials, next(), Set.of(genuine)));
        assertEquals(List.of(), judgement.victimRefused(), "the victim's refusals");
        assertTrue(judgement.victimSaw().stream().anyMatch(records -> records.contains(genuine)),
                "the victim's listener saw: " + judgement.victimSaw());
        assertTrue(hostsList(genuine), "the hosts file:\n" + readHosts());
    }

    @Test
    @DisplayName("a worker publishing the API name (api.internal.CLUSTER) is refused: control planes only")
    void workerClaimingTheApiNameIsRefused() throws Exception {
        EndpointRecord api = intruderRecord("api", 6443);
        assertRefused(intruder.signed(intruderCredentials, next(), Set.of(api)),
                "w-1 is certified as a worker and may not publish api.internal.demo (control planes only)", api);
    }

    @Test
    @DisplayName("a worker publishing the join service name is refused: control planes only")
    void workerClaimingTheJoinNameIsRefused() throws Exception {
        EndpointRecord join = intruderRecord("join", 30090);
        assertRefused(intruder.signed(intruderCredentials, next(), Set.of(join)),
                "w-1 is certified as a worker and may not publish join.internal.demo (control planes only)", join);
    }

    @Test
    @DisplayName("records signed with the intruder's key under another member's certificate (which anyone reads from that member's GetAttestation answer) are refused: the signature is not the certified key's")
    void recordsUnderAnotherMembersCertificateAreRefused() throws Exception {
        MemberCredentials stolenCertificate = new MemberCredentials(intruderCredentials.privateKey(),
                peerCredentials.certificate(), peerCredentials.caPublicKey());
        EndpointRecord forged = intruderRecord("cp-1.web", 443);
        assertRefused(intruder.signed(stolenCertificate, next(), Set.of(forged)),
                "announcement is not signed by the key certified for cp-1", forged);
    }

    @Test
    @DisplayName("a certificate from a CA of the intruder's making (claiming control plane cp-9) is refused: not the cluster's discovery CA")
    void forgedCertificateIsRefused() throws Exception {
        // The intruder knows the cluster ID (every attested node does): only the CA's signature is wrong.
        byte[] ownCaSeed = new byte[32];
        new SecureRandom().nextBytes(ownCaSeed);
        MemberCredentials forgedCa = new TestMembers(ownCaSeed, cluster.clusterId()).controlPlane("cp-9");
        EndpointRecord api = intruderRecord("api", 6443);
        EndpointRecord datastore = intruderRecord("etcd-cp-9", 2379);
        assertRefused(intruder.signed(forgedCa, next(), Set.of(api, datastore)),
                "member certificate is not signed by this cluster's discovery CA", api, datastore);
    }

    @Test
    @DisplayName("a certificate by the cluster's CA for another cluster is refused: the cluster ID must be ours")
    void certificateForAnotherClusterIsRefused() throws Exception {
        // Same CA key, other cluster ID: what a CA seed reused across clusters would allow.
        MemberCredentials other = new TestMembers(cluster.caSeed(), new byte[32]).controlPlane("cp-7");
        EndpointRecord forged = intruderRecord("etcd-cp-7", 2379);
        assertRefused(intruder.signed(other, next(), Set.of(forged)), "member certificate of cp-7 is for another cluster",
                forged);
    }

    @Test
    @DisplayName("an expired member certificate is refused: it is valid only until it ended")
    void expiredCertificateIsRefused() throws Exception {
        MemberCredentials expired = cluster.member(MemberKey.generate(new SecureRandom()), "cp-8", MemberRole.CONTROL_PLANE,
                Instant.now().minus(Duration.ofDays(3)), Duration.ofDays(1));
        EndpointRecord forged = intruderRecord("etcd-cp-8", 2379);
        assertRefused(intruder.signed(expired, next(), Set.of(forged)), "member certificate of cp-8 is valid only from",
                forged);
    }

    @Test
    @DisplayName("a replayed older announcement of another member (captured earlier) is refused: its version is not the newest")
    void replayedOlderAnnouncementIsRefused() throws Exception {
        // What cp-1 announced before its current version, validly signed by cp-1, when it had the address
        // the intruder now sends from (a re-addressed machine): every check of the announcement itself
        // passes, and only the record table's newest version of cp-1 refuses it.
        EndpointRecord old = intruderRecord("cp-1.old", 443);
        Judgement judgement = judge(intruder.signed(peerCredentials, 1, Set.of(old)));
        assertNeverAccepted(judgement, old);
        assertEquals(List.of(), judgement.victimRefused(), "refused before the version was looked at");
        assertTrue(victim.records().contains(peerRecord), "cp-1's current records stay: " + victim.records());
    }

    @Test
    @DisplayName("a replayed withdrawal of another member (the empty announcement a node sends as it leaves, captured earlier) is refused: its version is not the newest, its current records stay")
    void replayedWithdrawalIsRefused() throws Exception {
        Judgement judgement = judge(intruder.signed(peerCredentials, 1, Set.of()));
        for (SortedSet<EndpointRecord> records : judgement.victimSaw()) {
            assertTrue(records.contains(peerRecord), "the victim dropped cp-1's records: " + records);
        }
        assertTrue(victim.records().contains(peerRecord), "cp-1's records were withdrawn: " + victim.records());
        assertTrue(hostsList(peerRecord), "the hosts file lost cp-1's records:\n" + readHosts());
        assertEquals(List.of(), judgement.victimRefused(), "refused before the version was looked at");
    }

    @Test
    @DisplayName("a member pointing its own name at another machine's address (the honest peer's) is refused: records carry the sender's address")
    void ownNameAtAnotherAddressIsRefused() throws Exception {
        EndpointRecord elsewhere = new EndpointRecord("w-1." + DOMAIN, PEER_IP, 443);
        assertRefused(intruder.signed(intruderCredentials, next(), Set.of(elsewhere)),
                "w-1 may not publish w-1.internal.demo at " + PEER_IP + ": its announcements come from " + INTRUDER_IP,
                elsewhere);
    }

    @Test
    @DisplayName("a control plane publishing another control plane's etcd member name is refused: etcd-NODE is NODE's own")
    void anotherNodesEtcdMemberNameIsRefused() throws Exception {
        MemberCredentials rogueControlPlane = cluster.controlPlane("cp-5");
        EndpointRecord forged = intruderRecord("etcd-cp-0", 2379);
        assertRefused(intruder.signed(rogueControlPlane, next(), Set.of(forged)),
                "cp-5 may not publish another node's name etcd-cp-0.internal.demo", forged);
    }

    @Test
    @DisplayName("a control plane named etcd-cp-0 publishing etcd-cp-0.internal.demo, a name under its own node name that is cp-0's etcd member: refused, etcd-NODE is NODE's own")
    void nodeNamedLikeAnEtcdMemberIsRefused() throws Exception {
        MemberCredentials lookalike = cluster.controlPlane("etcd-cp-0");
        EndpointRecord forged = intruderRecord("etcd-cp-0", 2379);
        assertRefused(intruder.signed(lookalike, next(), Set.of(forged)),
                "etcd-cp-0 may not publish another node's name etcd-cp-0.internal.demo", forged);
    }

    @Test
    @DisplayName("a member publishing a name under another node's name (cp-1.web) is refused: a member's names are under its own node name")
    void nameUnderAnotherNodeIsRefused() throws Exception {
        EndpointRecord forged = intruderRecord("cp-1.web", 443);
        assertRefused(intruder.signed(intruderCredentials, next(), Set.of(forged)),
                "w-1 may not publish cp-1.web.internal.demo (a member publishes the shared names of its role", forged);
    }

    @Test
    @DisplayName("an announcement altered after signing (records swapped in) is refused: the signature covers them")
    void alteredAnnouncementIsRefused() throws Exception {
        byte[] genuine = intruder.signed(intruderCredentials, next(), Set.of(intruderRecord("w-1.aaa", 443)));
        byte[] altered = new String(genuine, StandardCharsets.ISO_8859_1).replace("w-1.aaa", "w-1.bbb")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertFalse(Arrays.equals(genuine, altered), "the records were swapped in");
        assertRefused(altered, "announcement is not signed by the key certified for w-1", intruderRecord("w-1.bbb", 443));
    }

    /** What the victim did while it judged one announcement: the record sets it handed its listener, why it refused. */
    private record Judgement(List<SortedSet<EndpointRecord>> victimSaw, List<String> victimRefused) {
    }

    /** Sends {@code announcement} and returns once the victim has judged it. */
    private Judgement judge(byte[] announcement) throws Exception {
        int saw = victimSaw.size();
        int refused = victimRefusals.size();
        intruder.sendAndAwaitJudgement(announcement, "cp-0", JUDGED_WITHIN);
        return new Judgement(List.copyOf(victimSaw.subList(saw, victimSaw.size())),
                List.copyOf(victimRefusals.subList(refused, victimRefusals.size())));
    }

    /** The victim refused {@code announcement} saying {@code reason}, and accepted none of {@code forged}. */
    private void assertRefused(byte[] announcement, String reason, EndpointRecord... forged) throws Exception {
        Judgement judgement = judge(announcement);
        for (EndpointRecord f : forged) {
            assertNeverAccepted(judgement, f);
        }
        assertTrue(judgement.victimRefused().stream().anyMatch(m -> m.contains(reason)),
                "the victim's refusals: " + judgement.victimRefused());
    }

    /** {@code forged} is in no record set the victim handed its listener, nor in its records or hosts file now. */
    private void assertNeverAccepted(Judgement judgement, EndpointRecord forged) {
        for (SortedSet<EndpointRecord> records : judgement.victimSaw()) {
            assertFalse(records.contains(forged), "the victim accepted " + forged + ": " + records);
        }
        assertFalse(victim.records().contains(forged), "the victim holds " + forged + ": " + victim.records());
        assertFalse(hostsList(forged), "the hosts file lists " + forged.name() + " at " + forged.address() + ":\n" + readHosts());
    }

    /** A record at the intruder's own address, so that only the rule its row names can refuse it. */
    private static EndpointRecord intruderRecord(String label, int port) {
        return new EndpointRecord(label + "." + DOMAIN, INTRUDER_IP, port);
    }

    private long next() {
        // Publish times, as GossipNode's versions are; each call newer than the last.
        lastVersion = Math.max(lastVersion + 1, System.currentTimeMillis());
        return lastVersion;
    }

    /** True when the hosts file's managed block lists {@code r}'s name at {@code r}'s address. */
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

    private static Logger gossipLogger() {
        return (Logger) LoggerFactory.getLogger(GossipNode.class);
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
