package dev.sextant.nodeboot.initserver;

import com.google.protobuf.ByteString;
import dev.sextant.proto.v1.InitRequest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InitInputsTest {
    @Test
    @DisplayName("the init secret hash is salted SHA-256 and matches only the exact secret")
    void secretHash() throws IOException {
        byte[] salt = new byte[16];
        InitSecretHash hash = InitSecretHash.parse(InitSecretHash.format(salt, "s3cret".getBytes()));
        assertTrue(hash.matches("s3cret".getBytes()));
        assertFalse(hash.matches("s3cret ".getBytes()));
        assertFalse(hash.matches(new byte[0]));
        assertThrows(IOException.class, () -> InitSecretHash.parse("$2a$10$bcrypt-is-not-this-format"));
        assertThrows(IOException.class, () -> InitSecretHash.parse("sha256:00:" + "00".repeat(32)), "salt too short");
    }

    @Test
    @DisplayName("a request with a kms_uri instead of a master secret is valid; one with both is not")
    void kmsUri() {
        String b64 = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32]);
        var base = InitRequest.newBuilder().setMeasurementSalt(ByteString.copyFrom(new byte[32]))
                .setKmsUri("kms://cluster-kms?key=" + b64 + "&salt=" + b64);
        assertEquals(List.of(), InitRequestValidator.problems(base.build()));
        assertEquals(List.of("give either master_secret or kms_uri, not both"),
                InitRequestValidator.problems(base.setMasterSecret(ByteString.copyFrom(new byte[32])).build()));
        assertEquals(1, InitRequestValidator.problems(base.clearMasterSecret().setKmsUri("gcp-kms://x").build()).size());
    }

    @Test
    @DisplayName("control_planes is 1 to 7 (0 asks for the default); a larger one, or a negative one sent as unsigned, is refused naming the range")
    void controlPlanes() {
        String b64 = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32]);
        var base = InitRequest.newBuilder().setMeasurementSalt(ByteString.copyFrom(new byte[32]))
                .setKmsUri("kms://cluster-kms?key=" + b64 + "&salt=" + b64);
        for (int n : new int[] {0, 1, 3, 7}) {
            assertEquals(List.of(), InitRequestValidator.problems(base.setControlPlanes(n).build()), "control_planes " + n);
        }
        assertEquals(List.of("control_planes must be between 1 and 7 (0: the default, 3), got 8"),
                InitRequestValidator.problems(base.setControlPlanes(8).build()));
        assertEquals(List.of("control_planes must be between 1 and 7 (0: the default, 3), got 4294967295"),
                InitRequestValidator.problems(base.setControlPlanes(-1).build()));
    }

    @Test
    @DisplayName("SANs are hostnames or IP literals; CIDRs are checked; nothing is resolved")
    void namesAndAddresses() {
        assertTrue(Names.isHostname("api.example.test"));
        assertTrue(Names.isIpAddress("192.0.2.1"));
        assertTrue(Names.isIpAddress("2001:db8::1"));
        assertFalse(Names.isIpAddress("256.1.1.1"));
        assertFalse(Names.isHostname("1.2.3.999"));
        assertFalse(Names.isHostname("-bad.example"));
        assertFalse(Names.isHostname("under_score.example"));
        assertTrue(Names.isCidr("10.43.0.0/16"));
        assertTrue(Names.isCidr("fd00::/108"));
        assertFalse(Names.isCidr("10.43.0.0/33"));
        assertTrue(Names.isDnsLabel("demo-1"));
        assertFalse(Names.isDnsLabel("Demo"));
        assertFalse(Names.isDnsLabel("a".repeat(64)));
    }
}
