package dev.sextant.keys.member;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * What a member certificate says and when it is refused. Rows about the encoding sign their
 * malformed bodies with the CA's own key, so only the parsing rule they name can refuse them.
 */
@DisplayName("MemberCertificate: what the discovery CA certifies about a member")
class MemberCertificateTest {
    private static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");
    private static final Duration VALIDITY = Duration.ofDays(1);

    private final byte[] caSeed = random32();
    private final DiscoveryCa ca = new DiscoveryCa(caSeed);
    /** The CA's key itself, to sign bodies DiscoveryCa would never produce. */
    private final MemberKey caKey = new MemberKey(caSeed);
    private final byte[] clusterId = random32();
    private final byte[] memberKey = MemberKey.generate(new SecureRandom()).publicKey();

    @Test
    @DisplayName("a certificate issued by the CA verifies with its public key and names the key, node name, role and cluster, valid from 5 minutes before issue")
    void issuedCertificateSaysWhatWasCertified() {
        MemberCertificate c = MemberCertificate.verify(issue(MemberRole.WORKER), ca.publicKey(), NOW);
        assertArrayEquals(memberKey, c.publicKey());
        assertEquals("w-1", c.nodeName());
        assertEquals(MemberRole.WORKER, c.role());
        assertTrue(c.sameCluster(clusterId));
        assertEquals(NOW.minus(DiscoveryCa.BACKDATE), c.notBefore());
        assertEquals(NOW.plus(VALIDITY), c.notAfter());
    }

    @Test
    @DisplayName("a certificate checked against another CA's public key is refused: not signed by this cluster's discovery CA")
    void anotherCaIsRefused() {
        byte[] otherCa = new DiscoveryCa(random32()).publicKey();
        refused("member certificate is not signed by this cluster's discovery CA",
                () -> MemberCertificate.verify(issue(MemberRole.WORKER), otherCa, NOW));
    }

    @Test
    @DisplayName("a worker's certificate with its role byte changed to control plane after signing is refused: the CA's signature covers the role")
    void roleAlteredAfterSigningIsRefused() {
        byte[] encoded = issue(MemberRole.WORKER);
        encoded[roleOffset()] = (byte) MemberRole.CONTROL_PLANE.code();
        refused("member certificate is not signed by this cluster's discovery CA",
                () -> MemberCertificate.verify(encoded, ca.publicKey(), NOW));
    }

    @Test
    @DisplayName("a certificate is valid from its start (inclusive) to its end (exclusive): before and from the end it is refused")
    void validityWindow() {
        byte[] encoded = issue(MemberRole.WORKER);
        Instant from = NOW.minus(DiscoveryCa.BACKDATE);
        Instant to = NOW.plus(VALIDITY);
        MemberCertificate.verify(encoded, ca.publicKey(), from);
        MemberCertificate.verify(encoded, ca.publicKey(), to.minusSeconds(1));
        String window = "member certificate of w-1 is valid only from " + from + " to " + to;
        refused(window, () -> MemberCertificate.verify(encoded, ca.publicKey(), from.minusSeconds(1)));
        refused(window, () -> MemberCertificate.verify(encoded, ca.publicKey(), to));
    }

    @Test
    @DisplayName("a certificate longer than 512 bytes or no longer than a signature is refused before any parsing")
    void sizeBounds() {
        refused("member certificate of 513 bytes is not 65..512",
                () -> MemberCertificate.verify(new byte[513], ca.publicKey(), NOW));
        refused("member certificate of 64 bytes is not 65..512",
                () -> MemberCertificate.verify(new byte[64], ca.publicKey(), NOW));
    }

    @Test
    @DisplayName("a CA-signed body with bytes after its last field is refused: trailing bytes")
    void trailingBytesAreRefused() {
        refused("member certificate has trailing bytes", () -> verifyBody(body -> concat(body, new byte[] {0})));
    }

    @Test
    @DisplayName("a CA-signed body with another version label is refused: unknown version label")
    void unknownLabelIsRefused() {
        refused("member certificate has an unknown version label",
                () -> verifyBody(body -> replace(body, MemberCertificate.LABEL, MemberCertificate.LABEL.replace("v1", "v2"))));
    }

    @Test
    @DisplayName("a CA-signed body naming role code 3 is refused: unknown role")
    void unknownRoleIsRefused() {
        refused("member certificate names an unknown role 3", () -> verifyBody(body -> {
            body[roleOffset()] = 3;
            return body;
        }));
    }

    @Test
    @DisplayName("a CA-signed body cut short before its validity is refused: truncated")
    void truncatedBodyIsRefused() {
        refused("member certificate is truncated", () -> verifyBody(body -> Arrays.copyOf(body, body.length - 10)));
    }

    @Test
    @DisplayName("a CA-signed body spelling the node name with an overlong character encoding is refused: one statement has one encoding")
    void nonCanonicalEncodingIsRefused() {
        // Java's modified UTF-8 reader accepts 0xC1 0xB7 for 'w'; the canonical body has the plain byte.
        refused("member certificate is not in its one canonical encoding", () -> verifyBody(body -> replace(body,
                new byte[] {0, 3, 'w', '-', '1'}, new byte[] {0, 4, (byte) 0xc1, (byte) 0xb7, '-', '1'})));
    }

    @Test
    @DisplayName("a statement with a node name that is not an RFC 1123 label, a cluster ID not 32 bytes, an end not after its start, or an unusable key is refused")
    void statementRules() {
        for (String name : new String[] {"W-1", "-w1", "w1-", "w.1", "a".repeat(64), ""}) {
            refused("member certificate node name '" + name + "' is not an RFC 1123 label",
                    () -> new MemberCertificate(memberKey, name, MemberRole.WORKER, clusterId, NOW, NOW.plus(VALIDITY)));
        }
        new MemberCertificate(memberKey, "a".repeat(63), MemberRole.WORKER, clusterId, NOW, NOW.plus(VALIDITY));
        refused("member certificate cluster ID must be 32 bytes",
                () -> new MemberCertificate(memberKey, "w-1", MemberRole.WORKER, new byte[31], NOW, NOW.plus(VALIDITY)));
        refused("member certificate validity ends before it starts",
                () -> new MemberCertificate(memberKey, "w-1", MemberRole.WORKER, clusterId, NOW, NOW));
        refused("the 32 bytes are not an Ed25519 public key (not a point of prime order on the curve)",
                () -> new MemberCertificate(MemberKeyTest.MIXED_ORDER_KEY, "w-1", MemberRole.WORKER, clusterId, NOW,
                        NOW.plus(VALIDITY)));
    }

    private byte[] issue(MemberRole role) {
        return ca.certifyMember(memberKey, "w-1", role, clusterId, NOW, VALIDITY);
    }

    /** The canonical body of w-1's worker statement, changed by {@code change}, signed by the CA's key and verified. */
    private MemberCertificate verifyBody(UnaryOperator<byte[]> change) {
        MemberCertificate statement = new MemberCertificate(memberKey, "w-1", MemberRole.WORKER, clusterId,
                NOW.minus(DiscoveryCa.BACKDATE), NOW.plus(VALIDITY));
        byte[] body = change.apply(statement.body());
        return MemberCertificate.verify(concat(body, caKey.sign(body)), ca.publicKey(), NOW);
    }

    /** Where w-1's role byte lies: after the label, the key and the name, each length-prefixed but the key. */
    private static int roleOffset() {
        return 2 + MemberCertificate.LABEL.length() + MemberKey.PUBLIC_KEY_BYTES + 2 + "w-1".length();
    }

    private static void refused(String message, Executable call) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
    }

    private static byte[] replace(byte[] bytes, String from, String to) {
        return replace(bytes, from.getBytes(StandardCharsets.US_ASCII), to.getBytes(StandardCharsets.US_ASCII));
    }

    /** {@code bytes} with the one occurrence of {@code from} replaced by {@code to}. */
    private static byte[] replace(byte[] bytes, byte[] from, byte[] to) {
        for (int i = 0; i + from.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + from.length, from, 0, from.length)) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.write(bytes, 0, i);
                out.writeBytes(to);
                out.write(bytes, i + from.length, bytes.length - i - from.length);
                return out.toByteArray();
            }
        }
        throw new AssertionError("not in the body: " + Arrays.toString(from));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] random32() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
