package dev.sextant.nodeboot.bringup;

import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.housekeeping.discovery.TestMembers;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("A membership: one factory per way in, each taking what that way knows")
class MembershipTest {
    private static final byte[] CLUSTER_ID = filled(0x1d);
    private static final byte[] DISK_KEY = filled(0x5d);
    private static final byte[] DISCOVERY_KEY = filled(0x44);
    private static final MemberCredentials MEMBER = TestMembers.random().worker("worker-0");

    @Test
    @DisplayName("a join starts on a fresh disk: no node state yet, no cluster services, the ticket's Kubernetes plan")
    void join() {
        var plan = new KubernetesPlan.Join(new JoinSettings("worker-0", "https://10.0.2.2:6443", "K10cafe::abcdef.0123", false));
        Membership joined = Membership.join(BootstrapStatus.Role.WORKER, "worker-0", CLUSTER_ID, DISK_KEY, DISCOVERY_KEY, plan,
                MEMBER);

        assertEquals(Via.JOIN, joined.via());
        assertTrue(joined.onDisk().isEmpty());
        assertInstanceOf(ServicesPlan.None.class, joined.services());
        assertEquals(plan, joined.kubernetes());
        assertTrue(joined.newVolumeKeys().isEmpty(), "a data volume's key is bound to the state disk's");
    }

    @Test
    @DisplayName("a join ticket's plan joins a cluster or there is none: it never starts or restarts one")
    void joinRefusesAnotherPlan() {
        var restart = new KubernetesPlan.Restart(NodeState.KubernetesRole.none());
        assertThrows(IllegalArgumentException.class, () -> Membership.join(BootstrapStatus.Role.WORKER, "worker-0",
                CLUSTER_ID, DISK_KEY, DISCOVERY_KEY, restart, MEMBER));
    }

    @Test
    @DisplayName("rejoin and recovery take the disk key and read everything else from the node state on the disk it opened")
    void rejoinAndRecoveryReadTheDisk() {
        NodeState state = new NodeState("control-plane", "control-plane-0", HexFormat.of().formatHex(CLUSTER_ID),
                "2026-11-24T03:00:00Z", Base64.getEncoder().encodeToString(DISCOVERY_KEY),
                new NodeState.KubernetesRole("server", "https://10.0.2.2:6443", "K10cafe::abcdef.0123"), true, Map.of(),
                NodeState.Member.of(MEMBER));

        for (Membership m : new Membership[] {Membership.rejoin(state, DISK_KEY), Membership.recovery(state, DISK_KEY)}) {
            assertEquals(BootstrapStatus.Role.CONTROL_PLANE, m.role(), "the disk's role wins over configuration");
            assertEquals("control-plane-0", m.nodeName());
            assertArrayEquals(CLUSTER_ID, m.clusterId());
            assertArrayEquals(DISK_KEY, m.diskKey());
            assertArrayEquals(DISCOVERY_KEY, m.discoveryKey());
            assertArrayEquals(MEMBER.privateKey(), m.member().privateKey());
            assertEquals(new KubernetesPlan.Restart(state.kubernetes()), m.kubernetes());
            assertInstanceOf(ServicesPlan.RestartNodeLocal.class, m.services());
            assertEquals(state, m.onDisk().orElseThrow());
        }
        assertEquals(Via.REJOIN, Membership.rejoin(state, DISK_KEY).via());
        assertEquals(Via.RECOVERY, Membership.recovery(state, DISK_KEY).via());
    }

    @Test
    @DisplayName("says how it was obtained and never what its secrets are")
    void toStringRedacts() {
        String text = Membership.join(BootstrapStatus.Role.WORKER, "worker-0", CLUSTER_ID, DISK_KEY, DISCOVERY_KEY,
                new KubernetesPlan.None(), MEMBER).toString();

        assertEquals("Membership[via=join, role=WORKER, nodeName=worker-0, kubernetes=None, secrets redacted]", text);
        assertFalse(text.contains(HexFormat.of().formatHex(DISK_KEY)));
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
