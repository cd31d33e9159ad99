package dev.sextant.kms;

import dev.sextant.grpcsupport.Refusal;
import java.util.List;
import java.util.Optional;

/**
 * Which key requests the service answers. Key ids become HKDF info strings and appear in logs, so they
 * are restricted to a small alphabet that still admits LUKS UUIDs, "measurementSecret" and "clusterID".
 */
public final class KeyRequestPolicy {

    public static final int MAX_ID_CHARS = 128;
    /** Keys are HKDF output used as disk passphrases and secrets; 64 bytes is far beyond any use. */
    public static final int MAX_KEY_BYTES = 64;
    /** A join ticket takes four keys; a batch is not a way to ask for a key space at once. */
    public static final int MAX_IDS_PER_CALL = 8;

    private KeyRequestPolicy() {
    }

    /**
     * Checks one request.
     *
     * @param length the proto's uint32, as Java's signed int (values above 2^31 arrive negative)
     * @return the refusal, or empty when the request may be answered
     */
    public static Optional<Refusal> check(String id, int length) {
        return checkId(id).or(() -> checkLength(length));
    }

    /**
     * Checks a request for several keys: their count, the length (every key's), then each id as
     * {@link #check(String, int)} checks one. The first refused id refuses the request; its message
     * says which one it is.
     */
    public static Optional<Refusal> check(List<String> ids, int length) {
        if (ids.isEmpty()) {
            return refuse(KeyRefusal.NO_IDS, "data_key_ids is empty");
        }
        if (ids.size() > MAX_IDS_PER_CALL) {
            return refuse(KeyRefusal.TOO_MANY_IDS, "data_key_ids has " + ids.size()
                    + " ids; at most " + MAX_IDS_PER_CALL + " are allowed in one call");
        }
        Optional<Refusal> refusal = checkLength(length);
        for (int i = 0; i < ids.size() && refusal.isEmpty(); i++) {
            String place = "data_key_ids[" + i + "]: ";
            refusal = checkId(ids.get(i)).map(r -> new Refusal(r.reason(), place + r.getMessage()));
        }
        return refusal;
    }

    private static Optional<Refusal> checkId(String id) {
        if (id.isEmpty()) {
            return refuse(KeyRefusal.EMPTY_ID, "data_key_id is empty");
        }
        if (id.length() > MAX_ID_CHARS) {
            return refuse(KeyRefusal.ID_TOO_LONG, "data_key_id has " + id.length()
                    + " characters; at most " + MAX_ID_CHARS + " are allowed");
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!allowed(c)) {
                // Name the code point, not the raw character: the id is untrusted and may hold control bytes.
                return refuse(KeyRefusal.ID_BAD_CHARACTER, String.format(
                        "data_key_id has a character outside [A-Za-z0-9._:-] at index %d (U+%04X)", i, (int) c));
            }
        }
        return Optional.empty();
    }

    private static Optional<Refusal> checkLength(int length) {
        if (length < 1 || length > MAX_KEY_BYTES) {
            return refuse(KeyRefusal.BAD_LENGTH, "length must be between 1 and " + MAX_KEY_BYTES
                    + " bytes, got " + Integer.toUnsignedString(length));
        }
        return Optional.empty();
    }

    private static boolean allowed(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == ':' || c == '-';
    }

    private static Optional<Refusal> refuse(KeyRefusal reason, String message) {
        return Optional.of(new Refusal(reason, message));
    }
}
