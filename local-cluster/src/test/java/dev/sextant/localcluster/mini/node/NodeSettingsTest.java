package dev.sextant.localcluster.mini.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The settings a mini node boots with")
class NodeSettingsTest {
    private final byte[] salt = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
    private final byte[] secret = "s3cret".getBytes(StandardCharsets.UTF_8);
    private static final String EK_CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    @Test
    @DisplayName("give the control plane its name, the init secret's salted hash (never the secret) and the EK CA")
    void controlPlane() throws Exception {
        Map<String, String> settings = NodeSettings.controlPlane("control-plane-0", secret, salt, EK_CA);
        assertEquals(List.of("sextant.node-name", "sextant.init-secret-hash", "sextant.ek-ca"),
                List.copyOf(settings.keySet()));
        assertEquals(EK_CA, settings.get("sextant.ek-ca"));
        assertEquals("control-plane-0", settings.get("sextant.node-name"));
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        sha256.update(salt);
        String digest = HexFormat.of().formatHex(sha256.digest(secret));
        assertEquals("sha256:00112233445566778899aabbccddeeff:" + digest, settings.get("sextant.init-secret-hash"));
        assertFalse(settings.values().stream().anyMatch(v -> v.contains("s3cret")));
    }

    @Test
    @DisplayName("give a worker its name, the control plane's join service as the guest sees the host, and the EK CA"
            + " to verify that service with")
    void worker() {
        assertEquals(Map.of("sextant.node-name", "worker-1", "sextant.join-endpoints", "10.0.2.2:41234",
                "sextant.ek-ca", EK_CA), NodeSettings.worker("worker-1", 41234, EK_CA));
    }
}
