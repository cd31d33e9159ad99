package dev.sextant.housekeeping.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules an announcement must pass before its records reach the record table, one row each,
 * every refusal asserted by what it says. Each refused announcement breaks one rule and keeps
 * every other (its records carry the sender's address, its certificate is the cluster CA's and
 * valid), so the row fails if that rule is not checked.
 */
@DisplayName("RecordVerifier: an announcement is its signer's to make")
class RecordVerifierTest {
    private static final String DOMAIN = "internal.demo";
    private static final String SENDER = "10.0.0.1";
    private static final EndpointRecord API = record("api", 6443);

    private final TestMembers cluster = TestMembers.random();
    private final Instant start = Instant.now();
    private Instant now = start;
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };
    private final RecordCodec codec = new RecordCodec(DOMAIN);
    private final RecordVerifier verifier = new RecordVerifier(codec, DOMAIN, cluster.controlPlane("cp-0"), clock);

    @Test
    @DisplayName("a control plane's announcement of the shared names, its own etcd member name and names under its node name is accepted")
    void controlPlaneRecordsAreAccepted() throws Exception {
        Set<EndpointRecord> records = Set.of(API, record("join", 30090), record("etcd-cp-1", 2379), record("cp-1.web", 443));
        RecordVerifier.Verified v = verifier.verify(signed(cluster.controlPlane("cp-1"), records), sender());
        assertEquals("cp-1", v.nodeName());
        assertEquals(5, v.version());
        assertEquals(records, v.records());
    }

    @Test
    @DisplayName("a worker publishing the API name is refused: control planes only")
    void workerPublishingTheApiNameIsRefused() {
        assertEquals("w-1 is certified as a worker and may not publish api.internal.demo (control planes only)",
                refusal(signed(cluster.worker("w-1"), Set.of(API))));
    }

    @Test
    @DisplayName("a worker publishing an etcd member name, even its own, is refused: control planes only")
    void workerPublishingAnEtcdMemberNameIsRefused() {
        assertEquals("w-1 is certified as a worker and may not publish etcd-w-1.internal.demo (control planes only)",
                refusal(signed(cluster.worker("w-1"), Set.of(record("etcd-w-1", 2379)))));
    }

    @Test
    @DisplayName("a control plane publishing another control plane's etcd member name is refused: etcd-NODE is NODE's own")
    void anotherNodesEtcdMemberNameIsRefused() {
        assertEquals("cp-5 may not publish another node's name etcd-cp-0.internal.demo",
                refusal(signed(cluster.controlPlane("cp-5"), Set.of(record("etcd-cp-0", 2379)))));
    }

    @Test
    @DisplayName("a member publishing a name under another member's node name is refused: a member's names are under its own")
    void nameUnderAnotherMemberIsRefused() {
        assertEquals("w-1 may not publish cp-0.web.internal.demo (a member publishes the shared names of its role and names"
                        + " under its own node name)",
                refusal(signed(cluster.worker("w-1"), Set.of(record("cp-0.web", 443)))));
    }

    @Test
    @DisplayName("a member publishing under a node name its own is a prefix of (w-1 as w-10) is refused: the name ends at a label")
    void nameUnderALongerNodeNameIsRefused() {
        assertTrue(refusal(signed(cluster.worker("w-1"), Set.of(record("w-10.web", 443))))
                .startsWith("w-1 may not publish w-10.web.internal.demo "));
    }

    @Test
    @DisplayName("a certificate by a CA other than the cluster's (for this cluster's ID) is refused: not the cluster's discovery CA")
    void certificateOfAnotherCaIsRefused() {
        byte[] otherSeed = new byte[32];
        new SecureRandom().nextBytes(otherSeed);
        MemberCredentials forged = new TestMembers(otherSeed, cluster.clusterId()).controlPlane("cp-9");
        assertEquals("member certificate is not signed by this cluster's discovery CA", refusal(signed(forged, Set.of(API))));
    }

    @Test
    @DisplayName("a certificate by the cluster's CA for another cluster ID is refused: the cluster must be ours")
    void certificateForAnotherClusterIsRefused() {
        MemberCredentials other = new TestMembers(cluster.caSeed(), new byte[32]).controlPlane("cp-7");
        assertEquals("member certificate of cp-7 is for another cluster", refusal(signed(other, Set.of(API))));
    }

    @Test
    @DisplayName("an announcement signed by a key other than the certified one is refused: the signature must be the certified key's")
    void signatureByAnotherKeyIsRefused() {
        MemberCredentials certified = cluster.controlPlane("cp-1");
        MemberCredentials otherKey = new MemberCredentials(MemberKey.generate(new SecureRandom()).privateKey(),
                certified.certificate(), certified.caPublicKey());
        assertEquals("announcement is not signed by the key certified for cp-1", refusal(signed(otherKey, Set.of(API))));
    }

    @Test
    @DisplayName("an announcement altered after signing (another record swapped in) is refused: the signature covers the records")
    void alteredAnnouncementIsRefused() {
        byte[] genuine = signed(cluster.controlPlane("cp-1"), Set.of(record("cp-1.aaa", 443)));
        byte[] altered = new String(genuine, StandardCharsets.ISO_8859_1).replace("cp-1.aaa", "cp-1.bbb")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("announcement is not signed by the key certified for cp-1", refusal(altered));
    }

    @Test
    @DisplayName("an announcement under an expired certificate is refused the first time it is seen: the certificate is valid only for its time")
    void expiredCertificateIsRefused() {
        MemberCredentials expired = cluster.member(MemberKey.generate(new SecureRandom()), "cp-8", MemberRole.CONTROL_PLANE,
                start.minus(Duration.ofDays(3)), Duration.ofDays(1));
        assertTrue(refusal(signed(expired, Set.of(API))).startsWith("member certificate of cp-8 is valid only from "));
    }

    @Test
    @DisplayName("a new announcement under a certificate verified before and expired since is refused: a remembered certificate is judged again on its time")
    void rememberedCertificateExpiredSinceIsRefused() throws Exception {
        MemberCredentials cp = cluster.member(MemberKey.generate(new SecureRandom()), "cp-1", MemberRole.CONTROL_PLANE, start,
                Duration.ofHours(1));
        verifier.verify(new RecordSigner(codec, cp).encode(5, Set.of(API)), sender());
        now = start.plus(Duration.ofHours(2));
        String refusal = refusal(new RecordSigner(codec, cp).encode(6, Set.of(API)));
        assertTrue(refusal.startsWith("member certificate of cp-1 is valid only from "), refusal);
    }

    @Test
    @DisplayName("a repeated announcement is judged again on what changes with time and sender: an expired certificate and another sender address are refused")
    void repeatsAreCheckedForTimeAndAddress() throws Exception {
        MemberCredentials cp = cluster.member(MemberKey.generate(new SecureRandom()), "cp-1", MemberRole.CONTROL_PLANE, start,
                Duration.ofHours(1));
        byte[] announcement = signed(cp, Set.of(API));

        RecordVerifier.Verified v = verifier.verify(announcement, sender());
        assertEquals("cp-1", v.nodeName());
        assertEquals(Set.of(API), v.records());
        assertEquals(v, verifier.verify(announcement, sender()), "the same bytes again");

        IllegalArgumentException moved = assertThrows(IllegalArgumentException.class,
                () -> verifier.verify(announcement, Optional.of(InetAddress.getByName("10.0.0.9"))));
        assertEquals("cp-1 may not publish api.internal.demo at 10.0.0.1: its announcements come from 10.0.0.9",
                moved.getMessage());

        now = start.plus(Duration.ofHours(2));
        IllegalArgumentException expired = assertThrows(IllegalArgumentException.class,
                () -> verifier.verify(announcement, sender()));
        assertTrue(expired.getMessage().startsWith("member certificate of cp-1 is valid only from "), expired.getMessage());
    }

    @Test
    @DisplayName("records from a sender whose address the transport does not know are refused: the address cannot be checked")
    void unknownSenderAddressIsRefused() {
        byte[] announcement = signed(cluster.controlPlane("cp-1"), Set.of(API));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> verifier.verify(announcement, Optional.empty()));
        assertEquals("the sender's address of cp-1's announcement is unknown", e.getMessage());
    }

    @Test
    @DisplayName("a control plane's announcement carrying the cluster's revocation list under revocations.DOMAIN is accepted, the list verified")
    void controlPlanePublishingTheRevocationListIsAccepted() throws Exception {
        byte[] revoked = TestMembers.keyOf(cluster.worker("w-3"));
        RecordVerifier.Verified v = verifier.verify(withList(cluster.controlPlane("cp-1"), "revocations", cluster.revocations(4, revoked)),
                sender());
        assertEquals(Set.of(API), v.records());
        assertEquals(4, v.revocations().orElseThrow().list().version());
        assertTrue(v.revocations().orElseThrow().list().revokes(revoked));
    }

    @Test
    @DisplayName("a worker publishing the revocation list, even the CA's genuine one, is refused: control planes only")
    void workerPublishingTheRevocationListIsRefused() {
        byte[] announcement = new RecordSigner(codec, cluster.worker("w-1")).encode(5, Set.of(record("w-1.web", 443)),
                java.util.Map.of("revocations." + DOMAIN, cluster.revocations(4)));
        assertEquals("w-1 is certified as a worker and may not publish revocations.internal.demo (control planes only)",
                refusal(announcement));
    }

    @Test
    @DisplayName("a statement under any other name (even one under the member's node name) is refused: the revocation list is the only statement")
    void otherStatementsAreRefused() {
        assertEquals("cp-1 may not publish the statement cp-1.notes.internal.demo (the only statement is revocations.internal.demo)",
                refusal(withList(cluster.controlPlane("cp-1"), "cp-1.notes", cluster.revocations(4))));
    }

    @Test
    @DisplayName("a control plane publishing a revocation list of another CA (for this cluster's ID) is refused: not the cluster's discovery CA")
    void revocationListOfAnotherCaIsRefused() {
        byte[] otherSeed = new byte[32];
        new SecureRandom().nextBytes(otherSeed);
        byte[] forged = new TestMembers(otherSeed, cluster.clusterId()).revocations(9, TestMembers.keyOf(cluster.controlPlane("cp-0")));
        assertEquals("cp-1's revocations.internal.demo: revocation list is not signed by this cluster's discovery CA",
                refusal(withList(cluster.controlPlane("cp-1"), "revocations", forged)));
    }

    @Test
    @DisplayName("a revocation list by the cluster's CA for another cluster ID is refused: for another cluster")
    void revocationListForAnotherClusterIsRefused() {
        byte[] other = new TestMembers(cluster.caSeed(), new byte[32]).revocations(9);
        assertEquals("cp-1's revocations.internal.demo: revocation list version 9 is for another cluster",
                refusal(withList(cluster.controlPlane("cp-1"), "revocations", other)));
    }

    /** {@code as}'s announcement of {@link #API} with the statement {@code label.DOMAIN} holding {@code bytes}. */
    private byte[] withList(MemberCredentials as, String label, byte[] bytes) {
        return new RecordSigner(codec, as).encode(5, Set.of(API), java.util.Map.of(label + "." + DOMAIN, bytes));
    }

    private byte[] signed(MemberCredentials as, Set<EndpointRecord> records) {
        return new RecordSigner(codec, as).encode(5, records);
    }

    /** Why the verifier refuses {@code announcement} from {@link #SENDER}. */
    private String refusal(byte[] announcement) {
        return assertThrows(IllegalArgumentException.class, () -> verifier.verify(announcement, sender())).getMessage();
    }

    private static Optional<InetAddress> sender() {
        try {
            return Optional.of(InetAddress.getByName(SENDER));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static EndpointRecord record(String label, int port) {
        return new EndpointRecord(label + "." + DOMAIN, SENDER, port);
    }
}
