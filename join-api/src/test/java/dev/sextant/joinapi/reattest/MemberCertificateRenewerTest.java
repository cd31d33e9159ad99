package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("MemberCertificateRenewer: the holder extends only an identity the CA gave this node")
class MemberCertificateRenewerTest {
    private static final Instant NOW = Instant.parse("2026-11-28T01:00:00Z");
    private final DiscoveryCa ca = new DiscoveryCa(random32());
    private final byte[] clusterId = random32();
    private final byte[] key = MemberKey.generate(new SecureRandom()).publicKey();
    private final BoundMachine machine = new BoundMachine("cp-1", "00ab", "10.0.0.2:7443", "control-plane");
    private final MemberCertificateRenewer renewer = new MemberCertificateRenewer(ca, clusterId, Duration.ofHours(1),
            Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    @DisplayName("a node's certificate, expired or not, is renewed for its key, name, role and cluster, from now for the validity")
    void renewsTheSameIdentity() {
        byte[] expired = ca.certifyMember(key, "cp-1", MemberRole.CONTROL_PLANE, clusterId, NOW.minus(Duration.ofDays(1)),
                Duration.ofHours(1));
        MemberCertificate renewed = renewer.renewalFor(machine, expired).orElseThrow().certificate();
        assertArrayEquals(key, renewed.publicKey());
        assertEquals("cp-1", renewed.nodeName());
        assertEquals(MemberRole.CONTROL_PLANE, renewed.role());
        assertArrayEquals(clusterId, renewed.clusterId());
        assertEquals(NOW.plus(Duration.ofHours(1)), renewed.notAfter());
        assertEquals(NOW.minus(DiscoveryCa.BACKDATE), renewed.notBefore());
    }

    @Test
    @DisplayName("no certificate, another CA's, another node's or another cluster's: nothing is renewed")
    void nothingElseIsRenewed() {
        assertTrue(renewer.renewalFor(machine, new byte[0]).isEmpty());
        assertTrue(renewer.renewalFor(machine, new DiscoveryCa(random32()).certifyMember(key, "cp-1", MemberRole.CONTROL_PLANE,
                clusterId, NOW, Duration.ofHours(1))).isEmpty());
        assertTrue(renewer.renewalFor(machine, ca.certifyMember(key, "cp-2", MemberRole.CONTROL_PLANE, clusterId, NOW,
                Duration.ofHours(1))).isEmpty());
        assertTrue(renewer.renewalFor(machine, ca.certifyMember(key, "cp-1", MemberRole.CONTROL_PLANE, random32(), NOW,
                Duration.ofHours(1))).isEmpty());
        assertTrue(renewer.renewalFor(machine, new byte[100]).isEmpty());
    }

    @Test
    @DisplayName("a certificate of another role than the machine's binding is not renewed: a machine bound as a worker presenting a control plane's, and a binding naming no role")
    void theBoundRoleDecides() {
        byte[] controlPlane = ca.certifyMember(key, "cp-1", MemberRole.CONTROL_PLANE, clusterId, NOW, Duration.ofHours(1));
        assertTrue(renewer.renewalFor(new BoundMachine("cp-1", "00ab", "10.0.0.2:7443", "worker"), controlPlane).isEmpty());
        assertTrue(renewer.renewalFor(new BoundMachine("cp-1", "00ab", "10.0.0.2:7443", ""), controlPlane).isEmpty());
        byte[] worker = ca.certifyMember(key, "cp-1", MemberRole.WORKER, clusterId, NOW, Duration.ofHours(1));
        assertTrue(renewer.renewalFor(machine, worker).isEmpty());
        assertTrue(renewer.renewalFor(new BoundMachine("cp-1", "00ab", "10.0.0.2:7443", "worker"), worker).isPresent());
    }

    private static byte[] random32() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
