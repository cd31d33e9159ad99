package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("MasterSecret")
class MasterSecretTest {

    /** 15 printable bytes, so a leak would be visible both as text and as hex. */
    private static final byte[] SHORT_SECRET = "short-secret-15".getBytes(StandardCharsets.US_ASCII);

    @Test
    @DisplayName("loads a 16-byte secret and a 32-byte salt (the minimums)")
    void loadsMinimums() {
        try (TestSecrets s = TestSecrets.write(new byte[16], new byte[32])) {
            assertNotNull(MasterSecret.load(s.secretFile, s.saltFile));
        }
    }

    @Test
    @DisplayName("toString shows lengths only, never key bytes")
    void toStringHidesBytes() {
        String text = MasterSecret.of(TestSecrets.SECRET, TestSecrets.SALT).toString();
        assertEquals("MasterSecret[secret=32 bytes, salt=32 bytes]", text);
    }

    @Test
    @DisplayName("a 15-byte master secret is refused with a message naming the file, not its content")
    void shortSecretRefused() {
        try (TestSecrets s = TestSecrets.write(SHORT_SECRET, new byte[32])) {
            MasterSecretException e = assertThrows(MasterSecretException.class,
                    () -> MasterSecret.load(s.secretFile, s.saltFile));
            assertEquals("the master secret file " + s.secretFile + " holds 15 bytes; at least 16 are required",
                    e.getMessage());
        }
    }

    @Test
    @DisplayName("a 31-byte salt is refused with a message naming the salt file")
    void shortSaltRefused() {
        try (TestSecrets s = TestSecrets.write(new byte[16], new byte[31])) {
            MasterSecretException e = assertThrows(MasterSecretException.class,
                    () -> MasterSecret.load(s.secretFile, s.saltFile));
            assertEquals("the salt file " + s.saltFile + " holds 31 bytes; at least 32 are required", e.getMessage());
        }
    }

    @Test
    @DisplayName("a missing file is refused with a message naming it")
    void missingFileRefused() {
        Path missing = Path.of("/nonexistent/sextant/mastersecret");
        MasterSecretException e = assertThrows(MasterSecretException.class,
                () -> MasterSecret.load(missing, missing));
        assertTrue(e.getMessage().startsWith("cannot read the master secret file " + missing), e.getMessage());
    }

    @Test
    @DisplayName("a file above 4 KiB is refused (wrong mount), without reading it whole")
    void oversizedFileRefused() {
        try (TestSecrets s = TestSecrets.write(new byte[5000], new byte[32])) {
            MasterSecretException e = assertThrows(MasterSecretException.class,
                    () -> MasterSecret.load(s.secretFile, s.saltFile));
            assertTrue(e.getMessage().contains("larger than 4096 bytes"), e.getMessage());
        }
    }

    @Test
    @DisplayName("the service refuses to start with a short master secret; the error names the file only")
    void serviceRefusesToStart() {
        try (TestSecrets s = TestSecrets.write(SHORT_SECRET, new byte[32])) {
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> ApplicationContext.run(s.contextProperties(), "test").close());
            String shown = fullText(e);
            assertTrue(shown.contains(s.secretFile + " holds 15 bytes; at least 16 are required"), shown);
            assertFalse(shown.contains("short-secret"), shown);
            assertFalse(shown.contains(HexFormat.of().formatHex(SHORT_SECRET)), shown);
        }
    }

    /** Everything an operator would see: each message in the cause chain. */
    private static String fullText(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t).append('\n');
        }
        return text.toString();
    }
}
