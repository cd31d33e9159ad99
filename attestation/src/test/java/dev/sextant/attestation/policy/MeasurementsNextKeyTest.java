package dev.sextant.attestation.policy;

import static dev.sextant.attestation.policy.MeasurementsFileTest.keys;
import static dev.sextant.attestation.policy.MeasurementsFileTest.pem;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("\"nextKey\": a signed set names the key that signs the sets after it")
class MeasurementsNextKeyTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("a set naming a next key reads back with it (canonical PEM, same fingerprint), and the writer is canonical")
    void roundTrip() throws Exception {
        KeyPair next = keys("EC");
        MeasurementsKey key = MeasurementsKey.of(pem(next.getPublic()));
        MeasurementSet set = MeasurementSet.parse(MeasurementsTest.VALID.getBytes(StandardCharsets.UTF_8))
                .withNextKey(key);
        byte[] json = set.toJson();
        MeasurementSet read = MeasurementSet.parse(json);
        assertEquals(Optional.of(key), read.nextKey());
        assertArrayEquals(json, read.toJson());
        assertTrue(key.fingerprint().matches("sha256:[0-9a-f]{64}"), key.fingerprint());
        assertTrue(MeasurementsKey.isFingerprint(key.fingerprint()));
        assertEquals(key.fingerprint(), key.toString(), "a key prints as its fingerprint, never its PEM");
    }

    @Test
    @DisplayName("the same key spelled differently (CRLF, wider lines) has one fingerprint; another key another")
    void fingerprintIgnoresSpelling() throws Exception {
        KeyPair k = keys("Ed25519");
        String pem = pem(k.getPublic());
        assertEquals(MeasurementsKey.of(pem).fingerprint(), MeasurementsKey.of(pem.replace("\n", "\r\n")).fingerprint());
        assertFalse(MeasurementsKey.of(pem).fingerprint().equals(MeasurementsKey.of(pem(keys("Ed25519").getPublic())).fingerprint()));
    }

    @Test
    @DisplayName("the strict reader refuses a \"nextKey\" that is not a string, not PEM, a private key, an RSA key, or a key with text around it")
    void strictReader() throws Exception {
        KeyPair ec = keys("EC");
        KeyPair rsa = keys("RSA");
        String ecPublic = pem(ec.getPublic());
        for (Object bad : new Object[]{12, "not a key", pem(ec.getPrivate()), pem(rsa.getPublic()), "comment\n" + ecPublic,
                ecPublic + ecPublic}) {
            String json = withNextKey(bad);
            MeasurementsException e = assertThrows(MeasurementsException.class,
                    () -> MeasurementSet.parse(json.getBytes(StandardCharsets.UTF_8)), String.valueOf(bad));
            assertTrue(e.getMessage().startsWith("\"nextKey\""), e.getMessage());
            assertFalse(e.getMessage().contains("PRIVATE KEY") || e.getMessage().contains("MII"), "key material in: " + e.getMessage());
        }
        String twice = MeasurementsTest.VALID.replaceFirst("\\{", "{\"nextKey\": \"a\", \"nextKey\": \"b\",");
        assertThrows(MeasurementsException.class, () -> MeasurementSet.parse(twice.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    @DisplayName("signing naming a next key writes it into the file and signs the result; a file naming another next key is refused unchanged")
    void signNamingNextKey() throws Exception {
        KeyPair signing = keys("Ed25519");
        KeyPair next = keys("EC");
        Path file = dir.resolve("measurements.json");
        Files.writeString(file, MeasurementsTest.VALID);

        MeasurementsFile.signNamingNextKey(file, pem(signing.getPrivate()), pem(next.getPublic()));
        MeasurementSet signed = MeasurementsFile.verifySet(file, pem(signing.getPublic()));
        assertEquals(MeasurementsKey.of(pem(next.getPublic())).fingerprint(), signed.nextKey().orElseThrow().fingerprint());

        byte[] before = Files.readAllBytes(file);
        MeasurementsException e = assertThrows(MeasurementsException.class,
                () -> MeasurementsFile.signNamingNextKey(file, pem(signing.getPrivate()), pem(keys("EC").getPublic())));
        assertTrue(e.getMessage().contains("names another next key already"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file));
        MeasurementsFile.signNamingNextKey(file, pem(signing.getPrivate()), pem(next.getPublic())); // the same key again: fine
    }

    private static String withNextKey(Object value) throws Exception {
        String literal = JsonMapper.builder().build().writeValueAsString(value);
        return MeasurementsTest.VALID.replaceFirst("\\{", "{\"nextKey\": " + literal + ",");
    }
}
