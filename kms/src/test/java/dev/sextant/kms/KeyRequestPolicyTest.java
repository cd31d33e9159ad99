package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.grpcsupport.Refusal;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("KeyRequestPolicy")
class KeyRequestPolicyTest {

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"measurementSecret", "clusterID", "6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
            "6F8C2E1A-3B4D-4E5F-8A9B-0C1D2E3F4A5B", "ca_emergency_ssh", "volume.1:a-b", "x"})
    @DisplayName("real key ids are accepted")
    void acceptsRealIds(String id) {
        assertTrue(KeyRequestPolicy.check(id, 32).isEmpty());
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {1, 32, 64})
    @DisplayName("lengths from 1 to 64 bytes are accepted")
    void acceptsLengths(int length) {
        assertTrue(KeyRequestPolicy.check("measurementSecret", length).isEmpty());
    }

    @DisplayName("an id of exactly 128 characters is accepted")
    @Test
    void acceptsMaxLengthId() {
        assertTrue(KeyRequestPolicy.check("a".repeat(128), 32).isEmpty());
    }

    static Stream<Arguments> badRequests() {
        return BadRequests.rows();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    @DisplayName("each bad request is refused with its reason and a message saying what is wrong")
    void refusesBadRequests(String row, String id, int length, KeyRefusal reason, String message) {
        Refusal refusal = KeyRequestPolicy.check(id, length).orElseThrow();
        assertEquals(reason, refusal.reason());
        assertEquals(message, refusal.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    @DisplayName("a batch with one bad id among good ones is refused, naming that id's place and what is wrong (a bad length: the call's)")
    void refusesBatchWithOneBadId(String row, String id, int length, KeyRefusal reason, String message) {
        Refusal refusal = KeyRequestPolicy.check(List.of("measurementSecret", id, "clusterID"), length).orElseThrow();
        assertEquals(reason, refusal.reason());
        // The length is every key's, so its refusal names no id.
        String place = reason == KeyRefusal.BAD_LENGTH ? "" : "data_key_ids[1]: ";
        assertEquals(place + message, refusal.getMessage());
    }

    @Test
    @DisplayName("a batch of 1 to 8 good ids is accepted; none, or more than 8, is refused")
    void batchSize() {
        assertTrue(KeyRequestPolicy.check(List.of("x"), 32).isEmpty());
        assertTrue(KeyRequestPolicy.check(Collections.nCopies(8, "x"), 32).isEmpty());
        Refusal none = KeyRequestPolicy.check(List.of(), 32).orElseThrow();
        assertEquals(KeyRefusal.NO_IDS, none.reason());
        assertEquals("data_key_ids is empty", none.getMessage());
        Refusal nine = KeyRequestPolicy.check(Collections.nCopies(9, "x"), 32).orElseThrow();
        assertEquals(KeyRefusal.TOO_MANY_IDS, nine.reason());
        assertEquals("data_key_ids has 9 ids; at most 8 are allowed in one call", nine.getMessage());
    }
}
