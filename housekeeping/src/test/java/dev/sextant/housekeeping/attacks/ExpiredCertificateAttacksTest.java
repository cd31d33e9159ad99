package dev.sextant.housekeeping.attacks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.housekeeping.discovery.EndpointRecord;
import dev.sextant.housekeeping.discovery.GossipNode;
import dev.sextant.housekeeping.discovery.RecordTable;
import dev.sextant.housekeeping.discovery.TestMembers;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Attacks with short-lived identities in discovery (docs/re-attestation.md, "Short-lived identities"):
 * a member that is no longer re-attested (its machine was taken, or it cannot be reached) keeps its
 * group key and its last certificate, and keeps announcing. Real members on the sealed stack over loopback.
 */
@DisplayName("Attacks with an expired member certificate: a member that is not re-attested loses its identity by itself")
class ExpiredCertificateAttacksTest {
    private static final String DOMAIN = "internal.demo";
    private static final String LOOPBACK = InetAddress.getLoopbackAddress().getHostAddress();
    private static final Duration VALIDITY = Duration.ofSeconds(5);

    private final TestMembers cluster = TestMembers.random();
    private final byte[] groupKey = new byte[32];
    private RefusedAnnouncements victimRefused;
    private GossipNode victim;
    private GossipNode old;

    @AfterEach
    void stop() {
        if (victimRefused != null) {
            victimRefused.close();
        }
        if (old != null) {
            old.close();
        }
        if (victim != null) {
            victim.close();
        }
    }

    @Test
    @DisplayName("an old member certificate after expiry: the records it signed leave the victim's table at its end, and the member's later announcements under it (a newer version, a new name) are refused: not valid now")
    void oldCertificateAfterExpiry() throws Exception {
        new SecureRandom().nextBytes(groupKey);
        victimRefused = RefusedAnnouncements.by("cp-0");
        int[] ports = FreePorts.loopback(2);
        List<InetSocketAddress> seeds = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports[0]));
        victim = GossipNode.start(new GossipNode.Config("cp-0", InetAddress.getLoopbackAddress(), ports[0], seeds, DOMAIN,
                Duration.ofSeconds(6), Duration.ofSeconds(30)), groupKey, cluster.controlPlane("cp-0"), records -> { });
        victim.publish(Set.of(new EndpointRecord("api." + DOMAIN, LOOPBACK, 6443)));
        Instant issued = Instant.now();
        old = GossipNode.start(new GossipNode.Config("w0", InetAddress.getLoopbackAddress(), ports[1], seeds, DOMAIN,
                        Duration.ofSeconds(6), Duration.ofSeconds(30)), groupKey,
                cluster.member(MemberKey.generate(new SecureRandom()), "w0", MemberRole.WORKER, issued, VALIDITY), records -> { });
        old.publish(Set.of(new EndpointRecord("w0.kubelet." + DOMAIN, LOOPBACK, 10250)));
        assertTrue(await(Duration.ofSeconds(20), () -> names().contains("w0.kubelet." + DOMAIN)),
                "the victim never took w0's records while its certificate was valid: " + names());

        while (Instant.now().isBefore(issued.plus(VALIDITY))) {
            Thread.sleep(50);
        }
        assertTrue(await(Duration.ofSeconds(3), () -> !names().contains("w0.kubelet." + DOMAIN)),
                "w0's records outlived its certificate: " + names());
        old.publish(Set.of(new EndpointRecord("w0.kubelet." + DOMAIN, LOOPBACK, 10250),
                new EndpointRecord("w0.web." + DOMAIN, LOOPBACK, 443)));
        assertTrue(await(Duration.ofSeconds(10), () -> victimRefused.reasons().stream().anyMatch(m -> m.contains("member certificate of w0 is valid only from"))),
                "the victim did not refuse w0's announcement for its expired certificate: " + victimRefused.reasons());
        assertTrue(names().stream().noneMatch(n -> n.startsWith("w0.")), "the victim took w0's announcement after expiry: " + names());
    }

    private Set<String> names() {
        return RecordTable.addressesByName(victim.records()).keySet();
    }

    private static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }
}
