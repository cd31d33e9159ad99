package dev.sextant.diskcrypt;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fixture: `cryptsetup luksDump --dump-json-metadata` of a header StateDisk formatted (cryptsetup 2.6.1). */
class LuksHeaderValidatorTest {
    private final ObjectMapper json = new ObjectMapper();
    private final LuksHeaderValidator validator = new LuksHeaderValidator();

    @Test
    @DisplayName("accepts the header Sextant itself writes (aes-xts-plain64, argon2id, 4096-byte sectors, its token)")
    void acceptsOwnHeader() throws IOException {
        assertDoesNotThrow(() -> validator.validate(fixture()));
    }

    @Test
    @DisplayName("accepts dm-integrity hmac(sha256) with a 96-byte volume key")
    void acceptsIntegrity() throws IOException {
        String header = mutate(root -> {
            ((ObjectNode) root.with("segments").with("0")).putObject("integrity").put("type", "hmac(sha256)")
                    .put("journal_encryption", "none").put("journal_integrity", "none");
            ((ObjectNode) root.with("keyslots").with("0")).put("key_size", 96);
        });
        assertDoesNotThrow(() -> validator.validate(header));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a planted null cipher on the data segment | /segments/0 | encryption | cipher_null-ecb | segment.encryption",
            "a planted null cipher on a key slot area | /keyslots/0/area | encryption | cipher_null-ecb | area.encryption",
            "a weak pbkdf2 key slot | /keyslots/0/kdf | type | pbkdf2 | kdf.type",
            "a 512-byte sector segment | /segments/0 | sector_size | 512 | sector_size",
            "an IV tweak other than 0 | /segments/0 | iv_tweak | 7 | iv_tweak",
            "a digest over sha1 | /digests/0 | hash | sha1 | hash",
            "a foreign token type | /tokens/0 | type | systemd-tpm2 | tokens.0.type",
            "an anti-forensic split with 1 stripe | /keyslots/0/af | stripes | 1 | stripes",
    })
    @DisplayName("refuses a planted header")
    void refusesPlantedHeaders(String what, String path, String field, String value, String message) throws IOException {
        String header = mutate(root -> {
            ObjectNode node = (ObjectNode) root.at(path);
            if (value.matches("\\d+") && node.get(field).isNumber()) {
                node.put(field, Integer.parseInt(value));
            } else {
                node.put(field, value);
            }
        });
        var e = assertThrows(DiskCryptException.class, () -> validator.validate(header));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    @DisplayName("accepts Sextant's token with a check value of 32 bytes, refuses one of another length or not base64")
    void checkValueInTheToken() throws IOException {
        String good = mutate(root -> ((ObjectNode) root.at("/tokens/0")).put("check_value",
                java.util.Base64.getEncoder().encodeToString(new byte[32])));
        assertDoesNotThrow(() -> validator.validate(good));
        String short16 = mutate(root -> ((ObjectNode) root.at("/tokens/0")).put("check_value",
                java.util.Base64.getEncoder().encodeToString(new byte[16])));
        var e = assertThrows(DiskCryptException.class, () -> validator.validate(short16));
        assertTrue(e.getMessage().contains("tokens.0.check_value: the check value has 16 bytes, not 32"), e.getMessage());
        String garbage = mutate(root -> ((ObjectNode) root.at("/tokens/0")).put("check_value", "not base64!"));
        assertThrows(DiskCryptException.class, () -> validator.validate(garbage));
    }

    @Test
    @DisplayName("refuses unknown fields anywhere, e.g. a segment flag it does not know")
    void refusesUnknownFields() throws IOException {
        String header = mutate(root -> ((ObjectNode) root.at("/segments/0")).putArray("flags").add("backup-previous"));
        var e = assertThrows(DiskCryptException.class, () -> validator.validate(header));
        assertTrue(e.getMessage().contains("unknown field 'flags'"), e.getMessage());
    }

    @Test
    @DisplayName("refuses a second data segment and a header that is not JSON")
    void refusesExtraSegmentAndGarbage() throws IOException {
        String twoSegments = mutate(root -> root.with("segments").set("1", root.at("/segments/0").deepCopy()));
        assertThrows(DiskCryptException.class, () -> validator.validate(twoSegments));
        assertThrows(DiskCryptException.class, () -> validator.validate("{not json"));
        assertThrows(DiskCryptException.class, () -> validator.validate("[]"));
    }

    static String fixture() throws IOException {
        try (InputStream in = LuksHeaderValidatorTest.class.getResourceAsStream("/luks/sextant-initialized.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private String mutate(Consumer<ObjectNode> change) throws IOException {
        ObjectNode root = (ObjectNode) json.readTree(fixture());
        change.accept(root);
        return json.writeValueAsString(root);
    }
}
