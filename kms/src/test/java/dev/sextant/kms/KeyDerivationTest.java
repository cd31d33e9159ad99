package dev.sextant.kms;

import dev.sextant.keys.KeyDerivation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("KeyDerivation")
class KeyDerivationTest {

    private static final HexFormat HEX = HexFormat.of();
    private final KeyDerivation derivation = new KeyDerivation(TestSecrets.SECRET, TestSecrets.SALT);

    @Test
    @DisplayName("HKDF-SHA256 reproduces RFC 5869 test case 1")
    void rfc5869TestCase1() {
        byte[] okm = KeyDerivation.hkdfSha256(HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"),
                HEX.parseHex("000102030405060708090a0b0c"), HEX.parseHex("f0f1f2f3f4f5f6f7f8f9"), 42);
        assertEquals("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
                HEX.formatHex(okm));
    }

    @Test
    @DisplayName("the data key of 'measurementSecret' matches a golden vector computed with openssl kdf HKDF")
    void goldenMeasurementSecret() {
        assertEquals("7420076e98cec75bf0de6a6e8b35c9e6a4e6c8fc3772a036bbfb035a509bf4bf",
                HEX.formatHex(derivation.dataKey("measurementSecret", 32)));
    }

    @Test
    @DisplayName("the data key of a LUKS UUID matches a golden vector computed with openssl kdf HKDF")
    void goldenLuksUuid() {
        assertEquals("db4cc39f6f394d8b44755c2eba865fd875cb6e55ac26c5713ee00fcd1963f1e9",
                HEX.formatHex(derivation.dataKey("6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", 32)));
    }

    @Test
    @DisplayName("the precomputed-PRK path equals full HKDF with info = \"key-\" + id")
    void precomputedPrkEqualsFullHkdf() {
        byte[] info = "key-clusterID".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(KeyDerivation.hkdfSha256(TestSecrets.SECRET, TestSecrets.SALT, info, 64),
                derivation.dataKey("clusterID", 64));
    }

    @Test
    @DisplayName("a shorter key is a prefix of a longer one for the same id (HKDF expand property)")
    void shorterIsPrefix() {
        byte[] long64 = derivation.dataKey("measurementSecret", 64);
        assertArrayEquals(Arrays.copyOf(long64, 32), derivation.dataKey("measurementSecret", 32));
    }

    @Test
    @DisplayName("a different salt gives a different key for the same id")
    void saltMatters() {
        byte[] otherSalt = TestSecrets.SALT.clone();
        otherSalt[0] ^= 1;
        KeyDerivation other = new KeyDerivation(TestSecrets.SECRET, otherSalt);
        assertFalse(Arrays.equals(derivation.dataKey("x", 32), other.dataKey("x", 32)));
    }

    @Test
    @DisplayName("an output length of 0 or above 255*32 bytes is refused")
    void lengthBounds() {
        assertThrows(IllegalArgumentException.class, () -> derivation.dataKey("x", 0));
        assertThrows(IllegalArgumentException.class, () -> derivation.dataKey("x", KeyDerivation.MAX_OUTPUT_BYTES + 1));
    }
}
