package dev.sextant.diskcrypt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Strict check of a LUKS2 header's JSON metadata before the node trusts it with a secret
 * (GHSA-hq76-6gh2-5g4q: a host can plant a header with a null cipher or a key it knows). Only
 * what Sextant itself writes is accepted; every unknown field is a rejection.
 */
public final class LuksHeaderValidator {
    static final String CIPHER = "aes-xts-plain64";
    static final String TOKEN_TYPE = "sextant-state-disk";
    /** The token's field holding the {@link KeyCheckValue} (base64); absent on disks formatted before it. */
    static final String CHECK_VALUE = "check_value";
    private static final Set<String> CONFIG_FLAGS = Set.of("allow-discards", "same-cpu-crypt",
            "submit-from-crypt-cpus", "no-journal", "no-read-workqueue", "no-write-workqueue");

    private final ObjectMapper json = new ObjectMapper();

    /** Throws with the first problem found, naming the JSON path. */
    public void validate(String metadata) throws DiskCryptException {
        JsonNode root;
        try {
            root = json.readTree(metadata);
        } catch (IOException e) {
            throw new DiskCryptException("LUKS2 header: metadata is not JSON: " + e.getMessage());
        }
        Strict.object(root, "header", Set.of("keyslots", "tokens", "segments", "digests", "config"));
        boolean integrity = checkSegments(Strict.object(root.get("segments"), "segments", null));
        checkKeyslots(Strict.object(root.get("keyslots"), "keyslots", null), integrity);
        checkDigests(Strict.object(root.get("digests"), "digests", null));
        checkTokens(Strict.object(root.get("tokens"), "tokens", null));
        checkConfig(root.get("config"));
    }

    private static boolean checkSegments(JsonNode segments) throws DiskCryptException {
        if (segments.size() != 1) {
            throw new DiskCryptException("LUKS2 header: expected exactly one segment, found " + segments.size());
        }
        JsonNode s = segments.elements().next();
        Strict.object(s, "segments.0", Set.of("type", "offset", "size", "iv_tweak", "encryption", "sector_size",
                "integrity"));
        Strict.text(s, "type", "crypt", "segment");
        Strict.text(s, "iv_tweak", "0", "segment");
        Strict.text(s, "encryption", CIPHER, "segment");
        Strict.number(s, "sector_size", 4096, "segment");
        JsonNode integrity = s.get("integrity");
        if (integrity != null) {
            Strict.object(integrity, "segment.integrity", Set.of("type", "journal_encryption", "journal_integrity"));
            Strict.text(integrity, "type", "hmac(sha256)", "segment.integrity");
            Strict.text(integrity, "journal_encryption", "none", "segment.integrity");
            Strict.text(integrity, "journal_integrity", "none", "segment.integrity");
        }
        return integrity != null;
    }

    private static void checkKeyslots(JsonNode keyslots, boolean integrity) throws DiskCryptException {
        for (Iterator<Map.Entry<String, JsonNode>> it = keyslots.fields(); it.hasNext(); ) {
            var slot = it.next();
            String where = "keyslots." + slot.getKey();
            JsonNode k = Strict.object(slot.getValue(), where, Set.of("type", "key_size", "af", "area", "kdf"));
            Strict.text(k, "type", "luks2", where);
            Strict.number(k, "key_size", integrity ? 96 : 64, where);
            JsonNode af = Strict.object(k.get("af"), where + ".af", Set.of("type", "stripes", "hash"));
            Strict.text(af, "type", "luks1", where + ".af");
            Strict.number(af, "stripes", 4000, where + ".af");
            Strict.text(af, "hash", "sha256", where + ".af");
            JsonNode area = Strict.object(k.get("area"), where + ".area",
                    Set.of("type", "offset", "size", "encryption", "key_size"));
            Strict.text(area, "type", "raw", where + ".area");
            Strict.text(area, "encryption", CIPHER, where + ".area");
            Strict.number(area, "key_size", 64, where + ".area");
            JsonNode kdf = Strict.object(k.get("kdf"), where + ".kdf", Set.of("type", "time", "memory", "cpus", "salt"));
            Strict.text(kdf, "type", "argon2id", where + ".kdf");
            Strict.positive(kdf, "memory", where + ".kdf");
            Strict.positive(kdf, "time", where + ".kdf");
            Strict.nonEmptyText(kdf, "salt", where + ".kdf");
        }
    }

    private static void checkDigests(JsonNode digests) throws DiskCryptException {
        if (digests.size() < 1) {
            throw new DiskCryptException("LUKS2 header: no digest");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = digests.fields(); it.hasNext(); ) {
            var digest = it.next();
            String where = "digests." + digest.getKey();
            JsonNode d = Strict.object(digest.getValue(), where,
                    Set.of("type", "keyslots", "segments", "hash", "iterations", "salt", "digest"));
            Strict.text(d, "type", "pbkdf2", where);
            Strict.text(d, "hash", "sha256", where);
            Strict.positive(d, "iterations", where);
            Strict.nonEmptyText(d, "salt", where);
            Strict.nonEmptyText(d, "digest", where);
        }
    }

    private static void checkTokens(JsonNode tokens) throws DiskCryptException {
        for (Iterator<Map.Entry<String, JsonNode>> it = tokens.fields(); it.hasNext(); ) {
            var token = it.next();
            String where = "tokens." + token.getKey();
            JsonNode t = Strict.object(token.getValue(), where, Set.of("type", "keyslots", "initialized", CHECK_VALUE));
            Strict.text(t, "type", TOKEN_TYPE, where);
            if (!t.path("initialized").isBoolean()) {
                throw new DiskCryptException("LUKS2 header: " + where + ".initialized must be a boolean");
            }
            if (t.has(CHECK_VALUE)) {
                Strict.nonEmptyText(t, CHECK_VALUE, where);
                try {
                    KeyCheckValue.bytesOf(t.get(CHECK_VALUE).asText());
                } catch (DiskCryptException e) {
                    throw new DiskCryptException("LUKS2 header: " + where + "." + CHECK_VALUE + ": " + e.getMessage());
                }
            }
        }
    }

    private static void checkConfig(JsonNode config) throws DiskCryptException {
        Strict.object(config, "config", Set.of("json_size", "keyslots_size", "flags"));
        JsonNode flags = config.get("flags");
        if (flags == null) {
            return;
        }
        if (!flags.isArray()) {
            throw new DiskCryptException("LUKS2 header: config.flags must be an array");
        }
        for (JsonNode flag : flags) {
            if (!CONFIG_FLAGS.contains(flag.asText())) {
                throw new DiskCryptException("LUKS2 header: config.flags holds unknown flag '" + flag.asText() + "'");
            }
        }
    }
}
