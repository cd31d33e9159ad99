package dev.sextant.keys.member;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("CertificateRenewal: a member takes only a later certificate of its own identity from its own CA")
class CertificateRenewalTest {
    private static final Instant JOINED = Instant.parse("2026-11-20T10:00:00Z");
    private static final Duration HOUR = Duration.ofHours(1);

    private final DiscoveryCa ca = new DiscoveryCa(random32());
    private final byte[] clusterId = random32();
    private final MemberKey key = MemberKey.generate(new SecureRandom());
    private final MemberCredentials current = new MemberCredentials(key.privateKey(),
            ca.certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, clusterId, JOINED, HOUR), ca.publicKey());

    @Test
    @DisplayName("a certificate of the same key, name, role and cluster by the same CA, ending later, replaces the current one")
    void laterCertificateIsTaken() throws Exception {
        Instant now = JOINED.plus(Duration.ofMinutes(30));
        byte[] renewed = ca.certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, clusterId, now, HOUR);
        MemberCredentials taken = CertificateRenewal.renew(current, renewed, now);
        assertArrayEquals(renewed, taken.certificate());
        assertArrayEquals(current.privateKey(), taken.privateKey());
        assertEquals(now.plus(HOUR), taken.check(now).notAfter());
    }

    @Test
    @DisplayName("an expired member takes a renewal: expiry waits for the next re-attestation, it does not end the member")
    void expiredMemberIsRenewed() throws Exception {
        Instant now = JOINED.plus(Duration.ofHours(5));
        byte[] renewed = ca.certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, clusterId, now, HOUR);
        assertEquals(now.plus(HOUR), CertificateRenewal.renew(current, renewed, now).check(now).notAfter());
    }

    @Test
    @DisplayName("a renewal signed by another CA is refused as not this member's, naming the CA")
    void anotherCa() {
        byte[] forged = new DiscoveryCa(random32()).certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, clusterId,
                JOINED.plusSeconds(60), HOUR);
        CertificateRenewal.Refused refused = assertThrows(CertificateRenewal.Refused.class,
                () -> CertificateRenewal.renew(current, forged, JOINED.plusSeconds(60)));
        assertEquals(CertificateRenewal.Kind.NOT_THIS_MEMBER, refused.kind());
        assertEquals("renewal refused: member certificate is not signed by this cluster's discovery CA (the CA this node"
                + " received at join)", refused.getMessage());
    }

    @Test
    @DisplayName("a renewal for another key, name, role or cluster is refused, saying which differ")
    void anotherSubject() {
        Instant now = JOINED.plusSeconds(60);
        byte[] otherKey = MemberKey.generate(new SecureRandom()).publicKey();
        assertRefused("renewal refused: it certifies another key than this node's certificate",
                ca.certifyMember(otherKey, "worker-0", MemberRole.WORKER, clusterId, now, HOUR), now);
        assertRefused("renewal refused: it certifies another node name (worker-1, not worker-0) than this node's certificate",
                ca.certifyMember(key.publicKey(), "worker-1", MemberRole.WORKER, clusterId, now, HOUR), now);
        assertRefused("renewal refused: it certifies another role (CONTROL_PLANE, not WORKER) than this node's certificate",
                ca.certifyMember(key.publicKey(), "worker-0", MemberRole.CONTROL_PLANE, clusterId, now, HOUR), now);
        assertRefused("renewal refused: it certifies another cluster than this node's certificate",
                ca.certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, random32(), now, HOUR), now);
    }

    @Test
    @DisplayName("a renewal that ends no later than the current certificate (a replayed older one, a shortened one) is refused")
    void notLater() {
        Instant now = JOINED.plusSeconds(60);
        CertificateRenewal.Refused shorter = assertThrows(CertificateRenewal.Refused.class, () -> CertificateRenewal.renew(current,
                ca.certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, clusterId, now, Duration.ofMinutes(10)), now));
        assertEquals(CertificateRenewal.Kind.NOT_LATER, shorter.kind());
        assertEquals("renewal refused: it ends at 2026-11-20T10:11:00Z, not later than this node's certificate"
                + " (2026-11-20T11:00:00Z)", shorter.getMessage());
        assertThrows(CertificateRenewal.Refused.class, () -> CertificateRenewal.renew(current, current.certificate(), now));
    }

    @Test
    @DisplayName("a renewal not valid yet is refused: its records would be refused everywhere")
    void notValidYet() {
        Instant now = JOINED.plusSeconds(60);
        CertificateRenewal.Refused refused = assertThrows(CertificateRenewal.Refused.class, () -> CertificateRenewal.renew(current,
                ca.certifyMember(key.publicKey(), "worker-0", MemberRole.WORKER, clusterId, now.plus(HOUR), HOUR), now));
        assertEquals(CertificateRenewal.Kind.NOT_LATER, refused.kind());
    }

    @Test
    @DisplayName("bytes too short or too long for a certificate are refused as malformed")
    void malformed() {
        CertificateRenewal.Refused refused = assertThrows(CertificateRenewal.Refused.class,
                () -> CertificateRenewal.renew(current, new byte[0], JOINED));
        assertEquals(CertificateRenewal.Kind.MALFORMED, refused.kind());
        assertEquals(CertificateRenewal.Kind.MALFORMED, assertThrows(CertificateRenewal.Refused.class,
                () -> CertificateRenewal.renew(current, new byte[10], JOINED)).kind());
    }

    private void assertRefused(String message, byte[] offered, Instant now) {
        CertificateRenewal.Refused refused = assertThrows(CertificateRenewal.Refused.class,
                () -> CertificateRenewal.renew(current, offered, now));
        assertEquals(CertificateRenewal.Kind.NOT_THIS_MEMBER, refused.kind());
        assertEquals(message, refused.getMessage());
    }

    @Test
    @DisplayName("a holder of the CA renews itself by the same rule: its own CA's certificate of its identity from now is taken, another CA's is refused as not this member's")
    void selfRenewalPassesTheSameRule() throws Exception {
        Instant now = JOINED.plus(Duration.ofHours(5));
        MemberCredentials renewed = CertificateRenewal.renewSelf(current, ca, now, HOUR);
        assertTrue(current.certified().sameSubject(renewed.check(now)));
        assertEquals(now.plus(HOUR), renewed.check(now).notAfter());
        assertEquals(CertificateRenewal.Kind.NOT_THIS_MEMBER, assertThrows(CertificateRenewal.Refused.class,
                () -> CertificateRenewal.renewSelf(current, new DiscoveryCa(random32()), now, HOUR)).kind());
    }

    private static byte[] random32() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
