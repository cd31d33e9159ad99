package dev.sextant.keys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The key scheme's HKDF against RFC 5869's vectors for long inputs and for an empty salt and info
 * (the KMS's tests hold test case 1, golden data keys and the {@code openssl kdf} peer), and the
 * cluster ID's place in the scheme.
 */
@DisplayName("KeyDerivation: HKDF-SHA256 as RFC 5869 defines it")
class KeyDerivationTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    @DisplayName("HKDF-SHA256 reproduces RFC 5869 test case 2 (80-byte key, salt and info; 82 bytes out)")
    void rfc5869TestCase2() {
        byte[] okm = KeyDerivation.hkdfSha256(range(0x00, 0x50), range(0x60, 0xb0), range(0xb0, 0x100), 82);
        assertEquals("b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09"
                + "da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87", HEX.formatHex(okm));
    }

    @Test
    @DisplayName("HKDF-SHA256 reproduces RFC 5869 test case 3 (empty salt and info: the salt defaults to zeros)")
    void rfc5869TestCase3() {
        byte[] okm = KeyDerivation.hkdfSha256(HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), new byte[0],
                new byte[0], 42);
        assertEquals("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
                HEX.formatHex(okm));
    }

    @Test
    @DisplayName("the cluster ID is the measurement secret's data key 'clusterID', as the key service would derive it")
    void clusterIdIsTheClusterIdDataKey() {
        byte[] secret = range(0x10, 0x30);
        byte[] salt = range(0x40, 0x60);
        assertArrayEquals(new KeyDerivation(secret, salt).dataKey("clusterID", KeyDerivation.KEY_BYTES),
                KeyDerivation.clusterId(secret, salt));
        assertArrayEquals(KeyDerivation.hkdfSha256(secret, salt, "key-clusterID".getBytes(StandardCharsets.UTF_8), 32),
                KeyDerivation.clusterId(secret, salt));
    }

    private static byte[] range(int from, int to) {
        byte[] bytes = new byte[to - from];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (from + i);
        }
        return bytes;
    }
}
