package dev.sextant.nodeboot.bringup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.housekeeping.discovery.GossipNode;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberRole;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A control plane renews its own member certificate at boot (docs/re-attestation.md, "A control plane
 * renews itself"): after the whole cluster was down for longer than the certificates live, the control
 * planes' discovery must take each other's records again before any etcd has a quorum (their etcd members
 * find each other by discovery's names) and so before a re-attestation holder exists.
 */
@DisplayName("A control plane renews its own member certificate at boot from the master secret on its state disk")
class ControlPlaneSelfRenewalTest {
    private static final List<String> CONTROL_PLANES = List.of("cp-0", "cp-1", "cp-2");

    @TempDir
    Path dir;

    private final Map<String, GossipNode> members = new LinkedHashMap<>();

    @AfterEach
    void stop() {
        members.values().parallelStream().forEach(GossipNode::close);
    }

    @Test
    @DisplayName("control planes whose certificates all expired while the cluster was down find each other again: each renews itself at start (two by recovery, one by rejoin), and every member resolves every etcd member's name")
    void expiredControlPlanesFindEachOtherAgain() throws Exception {
        ControlPlaneMachines cluster = new ControlPlaneMachines(dir);
        List<Integer> ports = portsFor(CONTROL_PLANES.size());
        List<InetSocketAddress> seeds = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(0)));
        Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS); // certificates say whole seconds
        for (int i = 0; i < CONTROL_PLANES.size(); i++) {
            String name = CONTROL_PLANES.get(i);
            MemberCredentials expired = cluster.expired(name, MemberRole.CONTROL_PLANE);
            Membership m = cluster.fromDisk(i == 2 ? Via.REJOIN : Via.RECOVERY, name, MemberRole.CONTROL_PLANE, expired);
            MemberCredentials atBoot = ControlPlaneMachines.atBoot(cluster.servicesWithMasterSecret(name), m, Clock.systemUTC());

            MemberCertificate renewed = atBoot.check(Instant.now());
            assertTrue(expired.certified().sameSubject(renewed), name + ": the renewal changed who the node is");
            assertFalse(renewed.notAfter().isBefore(before.plus(Duration.ofHours(1))), name + " renewed only until " + renewed.notAfter());
            assertArrayEquals(expired.privateKey(), atBoot.privateKey());
            members.put(name, cluster.start(name, atBoot, true, ports.get(i), seeds));
        }
        Set<String> etcdNames = CONTROL_PLANES.stream().map(ControlPlaneMachines::etcdName).collect(Collectors.toSet());
        assertTrue(await(Duration.ofSeconds(30), () -> members.values().stream()
                .allMatch(n -> ControlPlaneMachines.names(n).containsAll(etcdNames))), "etcd names not resolved everywhere:\n" + state());
    }

    @Test
    @DisplayName("without it, the same control planes with the certificates their disks kept resolve none of each other's etcd names (the liveness failure this closes)")
    void expiredControlPlanesAloneStayApart() throws Exception {
        ControlPlaneMachines cluster = new ControlPlaneMachines(dir);
        List<Integer> ports = portsFor(CONTROL_PLANES.size());
        List<InetSocketAddress> seeds = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(0)));
        for (int i = 0; i < CONTROL_PLANES.size(); i++) {
            String name = CONTROL_PLANES.get(i);
            members.put(name, cluster.start(name, cluster.expired(name, MemberRole.CONTROL_PLANE), true, ports.get(i), seeds));
        }
        assertTrue(await(Duration.ofSeconds(15), () -> members.values().stream().allMatch(n -> n.members() == CONTROL_PLANES.size())),
                "the members did not form a group:\n" + state());
        Thread.sleep(3000);
        assertTrue(members.values().stream().allMatch(n -> ControlPlaneMachines.names(n).isEmpty()),
                "records under ended certificates were taken:\n" + state());
    }

    @Test
    @DisplayName("the renewal lives as long as this control plane's join service certifies others for (member-certificate-validity in its join.properties), from now less the backdate")
    void validityOfTheJoinService() throws Exception {
        ControlPlaneMachines cluster = new ControlPlaneMachines(dir);
        MemberCredentials expired = cluster.expired("cp-1", MemberRole.CONTROL_PLANE);
        Path services = cluster.servicesWithMasterSecret("cp-1");
        Files.writeString(services.resolve("join.properties"), "sextant.join.member-certificate-validity=20m\n");
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        MemberCredentials atBoot = ControlPlaneMachines.atBoot(services,
                cluster.fromDisk(Via.RECOVERY, "cp-1", MemberRole.CONTROL_PLANE, expired), Clock.fixed(now, ZoneOffset.UTC));
        MemberCertificate renewed = atBoot.certified();
        assertEquals(now.plus(Duration.ofMinutes(20)), renewed.notAfter());
        assertEquals(now.minus(DiscoveryCa.BACKDATE), renewed.notBefore());
    }

    @Test
    @DisplayName("a control plane without the master secret on its disk (its KMS runs elsewhere) keeps the certificate it had, for the holder to renew")
    void noMasterSecretNoRenewal() throws Exception {
        ControlPlaneMachines cluster = new ControlPlaneMachines(dir);
        MemberCredentials expired = cluster.expired("cp-1", MemberRole.CONTROL_PLANE);
        assertArrayEquals(expired.certificate(), ControlPlaneMachines.atBoot(cluster.emptyServices("cp-1"),
                cluster.fromDisk(Via.REJOIN, "cp-1", MemberRole.CONTROL_PLANE, expired), Clock.systemUTC()).certificate());
    }

    private List<Integer> portsFor(int n) {
        return java.util.Arrays.stream(FreePorts.loopback(n)).boxed().toList();
    }

    private String state() {
        StringBuilder out = new StringBuilder();
        members.forEach((n, node) -> out.append(String.format("  %s: %d members, names %s%n", n, node.members(),
                ControlPlaneMachines.names(node))));
        return out.toString();
    }

    static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }
}
