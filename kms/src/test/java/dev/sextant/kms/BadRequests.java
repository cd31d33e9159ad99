package dev.sextant.kms;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** The bad-input table shared by the policy unit test and the end-to-end gRPC test. */
final class BadRequests {

    private BadRequests() {
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                row("empty id", "", 32, KeyRefusal.EMPTY_ID, "data_key_id is empty"),
                row("129-character id", "a".repeat(129), 32, KeyRefusal.ID_TOO_LONG,
                        "data_key_id has 129 characters; at most 128 are allowed"),
                row("60 KiB id (just under the 64 KiB message cap)", "a".repeat(60 << 10), 32,
                        KeyRefusal.ID_TOO_LONG, "data_key_id has 61440 characters; at most 128 are allowed"),
                row("slash (path traversal)", "../etc", 32, KeyRefusal.ID_BAD_CHARACTER,
                        "data_key_id has a character outside [A-Za-z0-9._:-] at index 2 (U+002F)"),
                row("space", "key id", 32, KeyRefusal.ID_BAD_CHARACTER,
                        "data_key_id has a character outside [A-Za-z0-9._:-] at index 3 (U+0020)"),
                row("newline (log injection)", "a\nb", 32, KeyRefusal.ID_BAD_CHARACTER,
                        "data_key_id has a character outside [A-Za-z0-9._:-] at index 1 (U+000A)"),
                row("NUL byte", "a\0", 32, KeyRefusal.ID_BAD_CHARACTER,
                        "data_key_id has a character outside [A-Za-z0-9._:-] at index 1 (U+0000)"),
                row("non-ASCII letter", "schlüssel", 32, KeyRefusal.ID_BAD_CHARACTER,
                        "data_key_id has a character outside [A-Za-z0-9._:-] at index 4 (U+00FC)"),
                row("length 0", "measurementSecret", 0, KeyRefusal.BAD_LENGTH,
                        "length must be between 1 and 64 bytes, got 0"),
                row("length 65", "measurementSecret", 65, KeyRefusal.BAD_LENGTH,
                        "length must be between 1 and 64 bytes, got 65"),
                row("length 2^32-1 (uint32 max)", "measurementSecret", -1, KeyRefusal.BAD_LENGTH,
                        "length must be between 1 and 64 bytes, got 4294967295"));
    }

    private static Arguments row(String name, String id, int length, KeyRefusal reason, String message) {
        return Arguments.of(name, id, length, reason, message);
    }
}
