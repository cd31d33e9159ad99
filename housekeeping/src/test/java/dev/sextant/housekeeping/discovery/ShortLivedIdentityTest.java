package dev.sextant.housekeeping.discovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.keys.member.CertificateRenewal;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Short-lived identities in discovery (docs/re-attestation.md): real members on the sealed stack over
 * loopback, two workers with certificates of a few seconds. A member's records live as long as its
 * certificate; a renewal (what the re-attestation holder sends after a successful round) keeps them, and
 * brings an expired member's back.
 */
@DisplayName("Short-lived identities in discovery: records live as long as their certificate, and a renewal keeps them")
class ShortLivedIdentityTest {
    private static final String DOMAIN = "internal.demo";
    private static final String LOOPBACK = InetAddress.getLoopbackAddress().getHostAddress();
    private static final Duration SHORT = Duration.ofSeconds(6);

    private final byte[] groupKey = new byte[32];
    private final TestMembers cluster;
    private final DiscoveryCa ca;
    private final Map<String, GossipNode> members = new LinkedHashMap<>();
    private final Map<String, MemberKey> keys = new LinkedHashMap<>();
    private final List<InetSocketAddress> seeds = new ArrayList<>();
    private List<Integer> ports;

    ShortLivedIdentityTest() {
        new SecureRandom().nextBytes(groupKey);
        cluster = TestMembers.forGroupKey(groupKey);
        ca = new DiscoveryCa(cluster.caSeed());
    }

    @AfterEach
    void stop() {
        members.values().parallelStream().forEach(GossipNode::close);
    }

    @Test
    @DisplayName("w0, not renewed, loses its records on every member when its certificate ends though it keeps announcing; w1, renewed before, keeps them and signs with the renewed certificate; w0 renewed later comes back")
    void expiryDropsAndRenewalKeeps() throws Exception {
        ports = java.util.Arrays.stream(FreePorts.loopback(3)).boxed().toList();
        seeds.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(0)));
        start("cp-0", 0, MemberRole.CONTROL_PLANE, Duration.ofDays(1));
        Instant shortCertificates = Instant.now();
        start("w0", 1, MemberRole.WORKER, SHORT);
        start("w1", 2, MemberRole.WORKER, SHORT);
        assertTrue(await(Duration.ofSeconds(30), () -> names("cp-0").containsAll(Set.of("w0.kubelet." + DOMAIN, "w1.kubelet." + DOMAIN))
                && names("w0").contains("w1.kubelet." + DOMAIN) && names("w1").contains("w0.kubelet." + DOMAIN)), state());

        byte[] renewal = certificate("w1", MemberRole.WORKER, Instant.now(), Duration.ofDays(1));
        members.get("w1").renewCertificate(renewal);
        assertArrayEquals(renewal, members.get("w1").certificate());

        // Past the first certificates' end (and a sweep): w0 is gone everywhere, w1 is not.
        while (Instant.now().isBefore(shortCertificates.plus(SHORT))) {
            Thread.sleep(100);
        }
        members.get("w0").publish(Set.of(new EndpointRecord("w0.kubelet." + DOMAIN, LOOPBACK, 10251))); // keeps announcing
        assertTrue(await(Duration.ofSeconds(5), () -> !names("cp-0").contains("w0.kubelet." + DOMAIN)
                && !names("w1").contains("w0.kubelet." + DOMAIN)), "w0's records outlived its certificate:\n" + state());
        Thread.sleep(1500);
        assertTrue(names("cp-0").contains("w1.kubelet." + DOMAIN) && names("w0").contains("w1.kubelet." + DOMAIN),
                "the renewed w1 lost its records:\n" + state());
        assertTrue(!names("cp-0").contains("w0.kubelet." + DOMAIN), "w0's announcement after expiry was taken:\n" + state());

        // The expired member takes a renewal and is back at once (a re-announce under the new certificate).
        members.get("w0").renewCertificate(certificate("w0", MemberRole.WORKER, Instant.now(), Duration.ofDays(1)));
        assertTrue(await(Duration.ofSeconds(10), () -> names("cp-0").contains("w0.kubelet." + DOMAIN)
                && names("w1").contains("w0.kubelet." + DOMAIN)), "the renewed w0 did not come back:\n" + state());
    }

    @Test
    @DisplayName("a renewal by another CA, for another name, or ending sooner changes nothing: the member keeps signing with its certificate")
    void refusedRenewalChangesNothing() throws Exception {
        ports = java.util.Arrays.stream(FreePorts.loopback(1)).boxed().toList();
        seeds.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(0)));
        start("w0", 0, MemberRole.WORKER, Duration.ofHours(1));
        GossipNode w0 = members.get("w0");
        byte[] before = w0.certificate();
        byte[] foreign = new DiscoveryCa(new byte[32]).certifyMember(keys.get("w0").publicKey(), "w0", MemberRole.WORKER,
                cluster.clusterId(), Instant.now(), Duration.ofDays(1));
        assertEquals(CertificateRenewal.Kind.NOT_THIS_MEMBER, assertThrows(CertificateRenewal.Refused.class,
                () -> w0.renewCertificate(foreign)).kind());
        assertEquals(CertificateRenewal.Kind.NOT_THIS_MEMBER, assertThrows(CertificateRenewal.Refused.class,
                () -> w0.renewCertificate(ca.certifyMember(keys.get("w0").publicKey(), "w9", MemberRole.WORKER,
                        cluster.clusterId(), Instant.now(), Duration.ofDays(1)))).kind());
        assertEquals(CertificateRenewal.Kind.NOT_LATER, assertThrows(CertificateRenewal.Refused.class,
                () -> w0.renewCertificate(certificate("w0", MemberRole.WORKER, Instant.now(), Duration.ofMinutes(5)))).kind());
        assertArrayEquals(before, w0.certificate());
    }

    private void start(String name, int index, MemberRole role, Duration validity) throws Exception {
        MemberKey key = MemberKey.generate(new SecureRandom());
        keys.put(name, key);
        MemberCredentials member = cluster.member(key, name, role, Instant.now(), validity);
        GossipNode node = GossipNode.start(new GossipNode.Config(name, InetAddress.getLoopbackAddress(), ports.get(index), seeds,
                DOMAIN, Duration.ofSeconds(6), Duration.ofSeconds(30)), groupKey, member, records -> { });
        node.publish(role == MemberRole.CONTROL_PLANE ? Set.of(new EndpointRecord("api." + DOMAIN, LOOPBACK, 6443))
                : Set.of(new EndpointRecord(name + ".kubelet." + DOMAIN, LOOPBACK, 10250)));
        members.put(name, node);
    }

    private byte[] certificate(String name, MemberRole role, Instant now, Duration validity) {
        return ca.certifyMember(keys.get(name).publicKey(), name, role, cluster.clusterId(), now, validity);
    }

    private Set<String> names(String member) {
        return RecordTable.addressesByName(members.get(member).records()).keySet();
    }

    private String state() {
        StringBuilder out = new StringBuilder();
        members.forEach((n, node) -> out.append(String.format("  %s: %d members, names %s%n", n, node.members(), names(n))));
        return out.toString();
    }

    private static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }
}
