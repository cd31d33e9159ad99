package dev.sextant.nodeboot.initserver;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Constellation's cluster-KMS URI, {@code kms://cluster-kms?key=<b64url>&salt=<b64url>}: the master
 * secret in URI form. External KMS back ends are not supported yet and are refused by the validator.
 */
public record KmsUri(byte[] masterSecret, byte[] masterSalt) {
    public static Optional<KmsUri> parse(String text) {
        try {
            URI uri = new URI(text);
            if (!"kms".equals(uri.getScheme()) || !"cluster-kms".equals(uri.getHost()) || uri.getRawQuery() == null) {
                return Optional.empty();
            }
            Map<String, String> query = new HashMap<>();
            for (String pair : uri.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    query.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
            byte[] key = Base64.getUrlDecoder().decode(query.getOrDefault("key", ""));
            byte[] salt = Base64.getUrlDecoder().decode(query.getOrDefault("salt", ""));
            if (key.length < InitRequestValidator.MIN_MASTER_SECRET || salt.length != InitRequestValidator.SALT_BYTES) {
                return Optional.empty();
            }
            return Optional.of(new KmsUri(key, salt));
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "KmsUri[cluster-kms, key=<redacted>]";
    }
}
