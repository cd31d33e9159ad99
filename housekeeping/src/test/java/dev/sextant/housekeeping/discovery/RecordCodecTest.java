package dev.sextant.housekeeping.discovery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordCodecTest {
    private final RecordCodec codec = new RecordCodec("internal.demo");

    @Test
    @DisplayName("an announcement round-trips: version and records")
    void roundTrip() {
        Set<EndpointRecord> records = Set.of(new EndpointRecord("api.internal.demo", "10.0.0.1", 6443),
                new EndpointRecord("etcd-node1.internal.demo", "fd00::1", 2379));
        var decoded = codec.decode(codec.encode(9, records));
        assertEquals(9, decoded.version());
        assertEquals(records, decoded.records());
    }

    @Test
    @DisplayName("an announcement with statements round-trips them by name; one without encodes as before statements existed")
    void statementsRoundTrip() {
        Set<EndpointRecord> records = Set.of(new EndpointRecord("api.internal.demo", "10.0.0.1", 6443));
        var decoded = codec.decode(codec.encode(9, records, java.util.Map.of("revocations.internal.demo", new byte[] {1, 2, 3})));
        assertEquals(records, decoded.records());
        assertEquals(java.util.List.of("revocations.internal.demo"), java.util.List.copyOf(decoded.statements().keySet()));
        org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {1, 2, 3}, decoded.statements().get("revocations.internal.demo"));
        assertEquals("{\"v\":9,\"r\":[{\"n\":\"api.internal.demo\",\"a\":\"10.0.0.1\",\"p\":6443}]}",
                new String(codec.encode(9, records), StandardCharsets.UTF_8));
        assertTrue(codec.decode(codec.encode(9, records)).statements().isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"v\":1,\"r\":[{\"n\":\"api.internal.other\",\"a\":\"10.0.0.1\",\"p\":1}]}",
            "{\"v\":1,\"r\":[{\"n\":\"evil-internal.demo\",\"a\":\"10.0.0.1\",\"p\":1}]}",
            "{\"v\":1,\"r\":[{\"n\":\"api.internal.demo\",\"a\":\"attacker.example\",\"p\":1}]}",
            "{\"v\":1,\"r\":[{\"n\":\"api.internal.demo\",\"a\":\"10.0.0.300\",\"p\":1}]}",
            "{\"v\":1,\"r\":[{\"n\":\"api.internal.demo\",\"a\":\"10.0.0.1\",\"p\":70000}]}",
            "{\"v\":0,\"r\":[]}",
            "{\"v\":1,\"r\":[],\"s\":[{\"n\":\"revocations.internal.other\",\"b\":\"AA==\"}]}",
            "{\"v\":1,\"r\":[],\"s\":[{\"n\":\"revocations.internal.demo\",\"b\":\"not base64!\"}]}",
            "{\"v\":1,\"r\":[],\"s\":[{\"n\":\"revocations.internal.demo\",\"b\":\"AA==\"},{\"n\":\"revocations.internal.demo\",\"b\":\"AQ==\"}]}",
            "{\"v\":1,\"r\":[],\"s\":[{\"n\":\"revocations.internal.demo\"}]}",
            "{\"v\":1,\"r\":[],\"s\":{\"n\":\"revocations.internal.demo\",\"b\":\"AA==\"}}",
            "{\"r\":[]}",
            "not json"})
    @DisplayName("a record outside the cluster's domain, a name for an address, a bad port, a malformed statement or a malformed announcement is refused")
    void refusesBadAnnouncements(String json) {
        var e = assertThrows(IllegalArgumentException.class, () -> codec.decode(json.getBytes(StandardCharsets.UTF_8)));
        assertTrue(!e.getMessage().isBlank());
    }

    @Test
    @DisplayName("an oversized announcement is refused before parsing")
    void sizeBound() {
        var e = assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[RecordCodec.MAX_BYTES + 1]));
        assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
    }
}
