package dev.sextant.keys.member;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("MemberKey: Ed25519 as RFC 8032 defines it")
class MemberKeyTest {
    private static final HexFormat HEX = HexFormat.of();
    /** RFC 8032 section 7.1, TEST 2 (also what openssl pkeyutl -rawin gives for it). */
    private static final byte[] SEED = HEX.parseHex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");
    private static final byte[] PUBLIC = HEX.parseHex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
    private static final byte[] MESSAGE = {0x72};
    private static final byte[] SIGNATURE = HEX.parseHex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
            + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00");

    @Test
    @DisplayName("the public key and signature of RFC 8032's test 2 are reproduced, and the signature verifies")
    void rfc8032Test2() {
        MemberKey key = new MemberKey(SEED);
        assertArrayEquals(PUBLIC, key.publicKey());
        assertArrayEquals(SIGNATURE, key.sign(MESSAGE));
        assertTrue(MemberKey.verify(PUBLIC, MESSAGE, SIGNATURE));
    }

    @Test
    @DisplayName("a signature does not verify under another key, over another message, or altered; malformed input is false, not an exception")
    void wrongSignaturesDoNotVerify() {
        byte[] otherKey = MemberKey.generate(new SecureRandom()).publicKey();
        assertFalse(MemberKey.verify(otherKey, MESSAGE, SIGNATURE), "another key");
        assertFalse(MemberKey.verify(PUBLIC, new byte[] {0x73}, SIGNATURE), "another message");
        byte[] altered = SIGNATURE.clone();
        altered[10] ^= 1;
        assertFalse(MemberKey.verify(PUBLIC, MESSAGE, altered), "an altered signature");
        assertFalse(MemberKey.verify(Arrays.copyOf(PUBLIC, 31), MESSAGE, SIGNATURE), "a short key");
        assertFalse(MemberKey.verify(PUBLIC, MESSAGE, Arrays.copyOf(SIGNATURE, 63)), "a short signature");
    }

    @Test
    @DisplayName("a private key that is not 32 bytes is refused")
    void privateKeyLength() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MemberKey(new byte[31]));
        assertEquals("an Ed25519 private key is 32 bytes, got 31", e.getMessage());
    }

    /**
     * TEST 2's public key plus the curve point of order 2, (0, -1): a point of the curve, so it
     * decodes, but of order 2q rather than the prime q, which only the full validation refuses.
     */
    static final byte[] MIXED_ORDER_KEY = HEX.parseHex("b0bfe83c17bc76a56d48f558b2e481436367d330d13b69733f32aa0ed50b99f3");

    @Test
    @DisplayName("a public key that is not 32 bytes, no curve point, of small order (the identity) or not of prime order is refused")
    void publicKeyChecks() {
        assertEquals("an Ed25519 public key is 32 bytes, got 31",
                assertThrows(IllegalArgumentException.class, () -> MemberKey.checkPublicKey(new byte[31])).getMessage());
        byte[] notAPoint = new byte[32];
        Arrays.fill(notAPoint, (byte) 0xff);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MemberKey.checkPublicKey(notAPoint)).getMessage()
                .startsWith("the 32 bytes are not an Ed25519 public key"));
        byte[] identity = new byte[32];
        identity[0] = 1;
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MemberKey.checkPublicKey(identity)).getMessage()
                .startsWith("the 32 bytes are not an Ed25519 public key"));
        assertEquals("the 32 bytes are not an Ed25519 public key (not a point of prime order on the curve)",
                assertThrows(IllegalArgumentException.class, () -> MemberKey.checkPublicKey(MIXED_ORDER_KEY)).getMessage());
        assertArrayEquals(PUBLIC, MemberKey.checkPublicKey(PUBLIC));
    }
}
