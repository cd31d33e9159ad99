package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.grpcsupport.Refusal;
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
}
