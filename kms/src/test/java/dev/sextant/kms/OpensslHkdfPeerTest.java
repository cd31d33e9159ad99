package dev.sextant.kms;

import dev.sextant.keys.KeyDerivation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Cross-checks the derivation against an independent implementation: OpenSSL 3's HKDF KDF. */
@DisplayName("KeyDerivation against openssl kdf HKDF")
class OpensslHkdfPeerTest {

    private static final HexFormat HEX = HexFormat.of();

    @ParameterizedTest(name = "id \"{0}\"")
    @ValueSource(strings = {"measurementSecret", "clusterID", "6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
            "ca_emergency_ssh", "a.b:c-d_e"})
    @DisplayName("our data key equals openssl's HKDF output for the same secret, salt and info")
    void matchesOpenssl(String id) throws Exception {
        String expected = openssl(List.of("openssl", "kdf", "-keylen", "48", "-kdfopt", "digest:SHA256",
                "-kdfopt", "hexkey:" + HEX.formatHex(TestSecrets.SECRET),
                "-kdfopt", "hexsalt:" + HEX.formatHex(TestSecrets.SALT),
                "-kdfopt", "info:key-" + id, "HKDF"));
        KeyDerivation derivation = new KeyDerivation(TestSecrets.SECRET, TestSecrets.SALT);
        assertEquals(expected, HEX.formatHex(derivation.dataKey(id, 48)));
    }

    private static String openssl(List<String> command) throws InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "openssl is not installed (" + e.getMessage() + "); skipping the peer check");
            throw new AssertionError("unreachable");
        }
        String out;
        try {
            out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        // An openssl that is installed but fails (or hangs) is a failed peer check, never a skip:
        // OpenSSL 3's `kdf HKDF` is what the test compares against (scripts/setup.sh installs it).
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "openssl kdf did not finish in 30 s");
        assertEquals(0, process.exitValue(), "openssl kdf HKDF failed (OpenSSL 3 needed): " + out);
        return out.replace(":", "").toLowerCase(Locale.ROOT);
    }
}
