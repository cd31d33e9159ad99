package dev.sextant.keys.member;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * What a revocation list says and when it is refused. Rows about the encoding sign their malformed
 * bodies with the CA's own key, so only the parsing rule they name can refuse them.
 */
@DisplayName("RevocationList: the discovery CA's list of revoked member keys")
class RevocationListTest {
    private final byte[] caSeed = random32();
    private final DiscoveryCa ca = new DiscoveryCa(caSeed);
    /** The CA's key itself, to sign bodies DiscoveryCa would never produce. */
    private final MemberKey caKey = new MemberKey(caSeed);
    private final byte[] clusterId = random32();
    private final byte[] low = key((byte) 0x10);
    private final byte[] high = key((byte) 0xf0);

    @Test
    @DisplayName("a list signed by the CA verifies with its public key and says its cluster, version and keys, sorted as unsigned bytes with repeats dropped")
    void roundTrip() {
        byte[] encoded = ca.signRevocationList(RevocationList.of(clusterId, 3, List.of(high, low, high.clone())));
        RevocationList list = RevocationList.verify(encoded, ca.publicKey(), clusterId);
        assertEquals(3, list.version());
        assertTrue(list.sameCluster(clusterId));
        assertEquals(2, list.revokedKeys().size());
        assertArrayEquals(low, list.revokedKeys().get(0));
        assertArrayEquals(high, list.revokedKeys().get(1));
        assertTrue(list.revokes(high));
        assertFalse(list.revokes(key((byte) 0x11)));
        assertArrayEquals(encoded, ca.signRevocationList(list), "one list, one encoding");
        assertEquals(2 + RevocationList.LABEL.length() + 32 + 8 + 2 + 2 * 32 + 64, encoded.length);
    }

    @Test
    @DisplayName("an empty list (version 1, nothing revoked) and a full one of 1000 keys verify; the full one is exactly MAX_BYTES")
    void emptyAndFullLists() {
        assertEquals(List.of(), RevocationList.verify(ca.signRevocationList(RevocationList.of(clusterId, 1, List.of())),
                ca.publicKey(), clusterId).revokedKeys());
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < RevocationList.MAX_KEYS; i++) {
            keys.add(random32());
        }
        byte[] full = ca.signRevocationList(RevocationList.of(clusterId, 9, keys));
        assertEquals(RevocationList.MAX_BYTES, full.length);
        assertEquals(RevocationList.MAX_KEYS, RevocationList.verify(full, ca.publicKey(), clusterId).revokedKeys().size());
    }

    @Test
    @DisplayName("a list checked against another CA's public key is refused: not signed by this cluster's discovery CA")
    void anotherCaIsRefused() {
        refused("revocation list is not signed by this cluster's discovery CA",
                () -> RevocationList.verify(signed(3), new DiscoveryCa(random32()).publicKey(), clusterId));
    }

    @Test
    @DisplayName("another cluster's list, signed by its own CA for its own cluster ID, is refused: not signed by this cluster's discovery CA")
    void anotherClustersListIsRefused() {
        byte[] otherCluster = random32();
        byte[] theirs = new DiscoveryCa(random32()).signRevocationList(RevocationList.of(otherCluster, 3, List.of(low)));
        refused("revocation list is not signed by this cluster's discovery CA",
                () -> RevocationList.verify(theirs, ca.publicKey(), clusterId));
    }

    @Test
    @DisplayName("a list by this CA for another cluster ID is refused: for another cluster")
    void anotherClusterIdIsRefused() {
        byte[] encoded = ca.signRevocationList(RevocationList.of(random32(), 3, List.of(low)));
        refused("revocation list version 3 is for another cluster", () -> RevocationList.verify(encoded, ca.publicKey(), clusterId));
    }

    @Test
    @DisplayName("a list whose version was raised after signing is refused: the CA's signature covers the version")
    void versionAlteredAfterSigningIsRefused() {
        byte[] encoded = signed(3);
        encoded[versionOffset() + 7] = 4;
        refused("revocation list is not signed by this cluster's discovery CA", () -> RevocationList.verify(encoded, ca.publicKey(), clusterId));
    }

    @Test
    @DisplayName("a list whose last key was cut off after signing is refused: the CA's signature covers the keys")
    void keyRemovedAfterSigningIsRefused() {
        byte[] encoded = signed(3);
        byte[] body = Arrays.copyOf(encoded, encoded.length - 64 - 32);
        body[versionOffset() + 9] = 1;
        byte[] cut = concat(body, Arrays.copyOfRange(encoded, encoded.length - 64, encoded.length));
        refused("revocation list is not signed by this cluster's discovery CA", () -> RevocationList.verify(cut, ca.publicKey(), clusterId));
    }

    @Test
    @DisplayName("a list longer than MAX_BYTES or no longer than a signature is refused before any parsing")
    void sizeBounds() {
        refused("revocation list of " + (RevocationList.MAX_BYTES + 1) + " bytes is not 65.." + RevocationList.MAX_BYTES,
                () -> RevocationList.verify(new byte[RevocationList.MAX_BYTES + 1], ca.publicKey(), clusterId));
        refused("revocation list of 64 bytes is not 65.." + RevocationList.MAX_BYTES,
                () -> RevocationList.verify(new byte[64], ca.publicKey(), clusterId));
    }

    @Test
    @DisplayName("a CA-signed body with another version label is refused: unknown version label (a member certificate is not a list)")
    void unknownLabelIsRefused() {
        refused("revocation list has an unknown version label",
                () -> verifyBody(body -> replace(body, RevocationList.LABEL, RevocationList.LABEL.replace("v1", "v2"))));
        byte[] certificate = ca.certifyMember(MemberKey.generate(new SecureRandom()).publicKey(), "w-1", MemberRole.WORKER,
                clusterId, java.time.Instant.now(), java.time.Duration.ofDays(1));
        refused("revocation list has an unknown version label", () -> RevocationList.verify(certificate, ca.publicKey(), clusterId));
    }

    @Test
    @DisplayName("a CA-signed body with bytes after its last key, or a key short, is refused: its count and its keys disagree")
    void countAndKeysDisagree() {
        refused("revocation list counts 2 keys but holds 65 bytes of keys", () -> verifyBody(body -> concat(body, new byte[] {0})));
        refused("revocation list counts 2 keys but holds 63 bytes of keys", () -> verifyBody(body -> Arrays.copyOf(body, body.length - 1)));
    }

    @Test
    @DisplayName("a CA-signed body cut short before its count is refused: truncated")
    void truncatedBodyIsRefused() {
        refused("revocation list is truncated", () -> verifyBody(body -> Arrays.copyOf(body, versionOffset() + 9)));
    }

    @Test
    @DisplayName("a CA-signed body with its keys out of order, or one key twice, is refused: one list has one encoding")
    void unsortedOrRepeatedKeysAreRefused() {
        refused("revocation list keys are not sorted and unique (key 1)", () -> verifyBody(body -> {
            int keys = versionOffset() + 10;
            byte[] swapped = body.clone();
            System.arraycopy(body, keys + 32, swapped, keys, 32);
            System.arraycopy(body, keys, swapped, keys + 32, 32);
            return swapped;
        }));
        refused("revocation list keys are not sorted and unique (key 1)", () -> verifyBody(body -> {
            int keys = versionOffset() + 10;
            System.arraycopy(body, keys, body, keys + 32, 32);
            return body;
        }));
    }

    @Test
    @DisplayName("a CA-signed body counting more than 1000 keys is refused before reading them, naming the limit")
    void tooManyKeysAreRefused() {
        refused("revocation list of 1001 keys exceeds 1000", () -> verifyBody(body -> {
            body[versionOffset() + 8] = (byte) (1001 >> 8);
            body[versionOffset() + 9] = (byte) (1001 & 0xff);
            return body;
        }));
    }

    @Test
    @DisplayName("a CA-signed body of version 0 is refused: versions start at 1")
    void versionZeroIsRefused() {
        refused("revocation list version must be 1 or more, got 0", () -> verifyBody(body -> {
            body[versionOffset() + 7] = 0;
            return body;
        }));
    }

    @Test
    @DisplayName("a CA-signed body spelling its label with an overlong character encoding is refused: one list has one encoding")
    void nonCanonicalEncodingIsRefused() {
        // Java's modified UTF-8 reader accepts 0xC1 0xB3 for 's'; the canonical body has the plain byte.
        refused("revocation list is not in its one canonical encoding", () -> verifyBody(body -> {
            byte[] label = RevocationList.LABEL.getBytes(StandardCharsets.US_ASCII);
            byte[] overlong = concat(new byte[] {0, (byte) (label.length + 1), (byte) 0xc1, (byte) 0xb3},
                    Arrays.copyOfRange(label, 1, label.length));
            return concat(overlong, Arrays.copyOfRange(body, 2 + label.length, body.length));
        }));
    }

    @Test
    @DisplayName("a list with a cluster ID not 32 bytes, a version below 1, a key not 32 bytes or more than 1000 keys cannot be made")
    void statementRules() {
        refused("revocation list cluster ID must be 32 bytes", () -> RevocationList.of(new byte[31], 1, List.of()));
        refused("revocation list version must be 1 or more, got 0", () -> RevocationList.of(clusterId, 0, List.of()));
        refused("a revoked key is 32 bytes, got 33", () -> RevocationList.of(clusterId, 1, List.of(new byte[33])));
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i <= RevocationList.MAX_KEYS; i++) {
            keys.add(random32());
        }
        refused("revocation list of 1001 keys exceeds 1000", () -> RevocationList.of(clusterId, 1, keys));
    }

    /** Version {@code version} of the list revoking {@link #low} and {@link #high}, signed by the CA. */
    private byte[] signed(long version) {
        return ca.signRevocationList(RevocationList.of(clusterId, version, List.of(low, high)));
    }

    /** The canonical body of the list of {@link #low} and {@link #high} at version 3, changed, signed by the CA's key and verified. */
    private RevocationList verifyBody(UnaryOperator<byte[]> change) {
        byte[] body = change.apply(RevocationList.of(clusterId, 3, List.of(low, high)).body());
        return RevocationList.verify(concat(body, caKey.sign(body)), ca.publicKey(), clusterId);
    }

    /** Where the version starts: after the length-prefixed label and the cluster ID. */
    private static int versionOffset() {
        return 2 + RevocationList.LABEL.length() + 32;
    }

    private static void refused(String message, Executable call) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
    }

    private static byte[] replace(byte[] bytes, String from, String to) {
        byte[] f = from.getBytes(StandardCharsets.US_ASCII);
        byte[] t = to.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i + f.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + f.length, f, 0, f.length)) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.write(bytes, 0, i);
                out.writeBytes(t);
                out.write(bytes, i + f.length, bytes.length - i - f.length);
                return out.toByteArray();
            }
        }
        throw new AssertionError("not in the body: " + from);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] key(byte first) {
        byte[] key = random32();
        key[0] = first;
        return key;
    }

    private static byte[] random32() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
