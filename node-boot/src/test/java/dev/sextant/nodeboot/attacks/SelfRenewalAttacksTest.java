package dev.sextant.nodeboot.attacks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.housekeeping.discovery.GossipNode;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.nodeboot.bringup.ControlPlaneMachines;
import dev.sextant.nodeboot.bringup.Via;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on a control plane's own renewal at boot (docs/re-attestation.md, "A control plane renews
 * itself"): only a control plane holding its cluster's master secret issues itself a certificate, and only
 * through the renewal rule every holder's renewal passes. Each row starts a real control plane on loopback
 * (renewed by itself) and the machine under attack beside it, and checks the machine kept the certificate
 * its disk held and the control plane takes none of its records.
 */
@DisplayName("Attacks on a control plane's own renewal: only a holder of the cluster's master secret renews itself, by the renewal rule")
class SelfRenewalAttacksTest {
    @TempDir
    Path dir;

    private final List<GossipNode> members = new ArrayList<>();

    @AfterEach
    void stop() {
        members.parallelStream().forEach(GossipNode::close);
    }

    @Test
    @DisplayName("a worker does not renew itself, even with the cluster's master secret lying in its services directory: it keeps its ended certificate and its records stay refused until the holder's round")
    void workerHoldsNoCa() throws Exception {
        ControlPlaneMachines cluster = new ControlPlaneMachines(dir);
        GossipNode cp = startControlPlane(cluster);
        MemberCredentials expired = cluster.expired("worker-0", MemberRole.WORKER);
        MemberCredentials atBoot = ControlPlaneMachines.atBoot(cluster.servicesWithMasterSecret("worker-0"),
                cluster.fromDisk(Via.REJOIN, "worker-0", MemberRole.WORKER, expired), Clock.systemUTC());
        assertArrayEquals(expired.certificate(), atBoot.certificate(), "the worker renewed its own certificate");
        refusedBeside(cp, cluster, "worker-0", atBoot, false);
    }

    @Test
    @DisplayName("a control plane whose master secret is not its cluster's (a discovery CA of its own making) is refused by the renewal rule: it keeps its ended certificate and no member takes its records")
    void foreignCaRefused() throws Exception {
        ControlPlaneMachines cluster = new ControlPlaneMachines(dir);
        GossipNode cp = startControlPlane(cluster);
        MemberCredentials expired = cluster.expired("cp-1", MemberRole.CONTROL_PLANE);
        MemberCredentials atBoot = ControlPlaneMachines.atBoot(cluster.servicesWith("cp-1", ControlPlaneMachines.random(32),
                cluster.masterSalt()), cluster.fromDisk(Via.RECOVERY, "cp-1", MemberRole.CONTROL_PLANE, expired), Clock.systemUTC());
        assertArrayEquals(expired.certificate(), atBoot.certificate(), "a certificate of another CA was taken");
        refusedBeside(cp, cluster, "cp-1", atBoot, true);
    }

    private int port;
    private List<InetSocketAddress> seeds;

    /** cp-0, renewed by itself after its recovery, announcing its etcd member's name. */
    private GossipNode startControlPlane(ControlPlaneMachines cluster) throws Exception {
        int[] ports = FreePorts.loopback(2);
        port = ports[1];
        seeds = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports[0]));
        MemberCredentials renewed = ControlPlaneMachines.atBoot(cluster.servicesWithMasterSecret("cp-0"),
                cluster.fromDisk(Via.RECOVERY, "cp-0", MemberRole.CONTROL_PLANE, cluster.expired("cp-0", MemberRole.CONTROL_PLANE)),
                Clock.systemUTC());
        GossipNode cp = cluster.start("cp-0", renewed, true, ports[0], seeds);
        members.add(cp);
        return cp;
    }

    /** {@code name} joins beside cp-0 and announces: it hears cp-0's name, cp-0 never lists its own. */
    private void refusedBeside(GossipNode cp, ControlPlaneMachines cluster, String name, MemberCredentials credentials,
                               boolean controlPlane) throws Exception {
        GossipNode node = cluster.start(name, credentials, controlPlane, port, seeds);
        members.add(node);
        String own = controlPlane ? ControlPlaneMachines.etcdName(name) : name + ".kubelet." + ControlPlaneMachines.DOMAIN;
        assertTrue(await(Duration.ofSeconds(20), () -> ControlPlaneMachines.names(node).contains(ControlPlaneMachines.etcdName("cp-0"))),
                name + " never heard cp-0: " + ControlPlaneMachines.names(node));
        Thread.sleep(2000);
        assertFalse(ControlPlaneMachines.names(cp).contains(own), "cp-0 took " + own + " under an ended certificate");
    }

    private static boolean await(Duration timeout, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }
}
