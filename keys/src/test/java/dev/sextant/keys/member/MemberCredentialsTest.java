package dev.sextant.keys.member;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("MemberCredentials: a member's key, its certificate and the CA belong together")
class MemberCredentialsTest {
    private static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");

    private final byte[] caSeed = random32();
    private final DiscoveryCa ca = new DiscoveryCa(caSeed);
    private final MemberKey key = MemberKey.generate(new SecureRandom());

    @Test
    @DisplayName("credentials whose certificate certifies the member's own key, by the CA they name, check out")
    void matchingCredentials() {
        MemberCredentials credentials = new MemberCredentials(key.privateKey(), certify(key.publicKey()), ca.publicKey());
        assertEquals("cp-0", credentials.check(NOW).nodeName());
    }

    @Test
    @DisplayName("a certificate of another member's key under this member's private key is refused: it certifies another key")
    void certificateOfAnotherKeyIsRefused() {
        byte[] otherKey = MemberKey.generate(new SecureRandom()).publicKey();
        MemberCredentials credentials = new MemberCredentials(key.privateKey(), certify(otherKey), ca.publicKey());
        assertEquals("the member certificate certifies another key than this member's",
                assertThrows(IllegalArgumentException.class, () -> credentials.check(NOW)).getMessage());
    }

    @Test
    @DisplayName("credentials naming another CA than the certificate's issuer are refused: not signed by that CA")
    void anotherCaIsRefused() {
        MemberCredentials credentials = new MemberCredentials(key.privateKey(), certify(key.publicKey()),
                new DiscoveryCa(random32()).publicKey());
        assertEquals("member certificate is not signed by this cluster's discovery CA",
                assertThrows(IllegalArgumentException.class, () -> credentials.check(NOW)).getMessage());
    }

    @Test
    @DisplayName("the CA, a member key and credentials print no key material")
    void noSecretsInToString() {
        HexFormat hex = HexFormat.of();
        MemberCredentials credentials = new MemberCredentials(key.privateKey(), certify(key.publicKey()), ca.publicKey());
        for (Object secretHolder : new Object[] {ca, key, credentials}) {
            String text = secretHolder.toString();
            assertFalse(text.contains(hex.formatHex(caSeed)) || text.contains(hex.formatHex(key.privateKey())), text);
            assertEquals(secretHolder.getClass().getSimpleName() + "[", text.substring(0, text.indexOf('[') + 1));
        }
    }

    private byte[] certify(byte[] publicKey) {
        return ca.certifyMember(publicKey, "cp-0", MemberRole.CONTROL_PLANE, new byte[32], NOW, Duration.ofDays(1));
    }

    private static byte[] random32() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
