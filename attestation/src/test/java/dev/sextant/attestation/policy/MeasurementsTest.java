package dev.sextant.attestation.policy;

import dev.sextant.attestation.Variant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MeasurementsTest {
    static final String A = "ab".repeat(32);
    static final String C = "cd".repeat(32);
    static final String ZERO = "00".repeat(32);
    static final String VALID = """
            {"variant": "qemu-vtpm", "measurements": {
              "4": {"expected": "%s"},
              "9": {"expected": "%s", "warnOnly": false},
              "11": {"expected": "%s"},
              "12": {"expected": "%s"},
              "13": {"expected": "%s"},
              "14": {"expected": "%s", "warnOnly": true},
              "15": {"expected": "%s"}}}
            """.formatted(A, A, C, ZERO, ZERO, C, ZERO);

    @Test
    @DisplayName("reads variant, expected values and warnOnly flags, and writes them back identically")
    void parsesAndRoundTrips() throws Exception {
        Measurements m = Measurements.parse(VALID.getBytes(StandardCharsets.UTF_8));

        assertEquals(Variant.QEMU_VTPM, m.variant());
        assertEquals(7, m.measurements().size());
        assertTrue(m.measurements().get(14).warnOnly());
        assertEquals(false, m.measurements().get(15).warnOnly());
        assertEquals(new String(m.toJson(), StandardCharsets.UTF_8),
                new String(Measurements.parse(m.toJson()).toJson(), StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "rejects {0}")
    @CsvSource(delimiter = '|', textBlock = """
            an unknown top-level field      | {"variant":"qemu-vtpm","measurements":{},"extra":1}             | unknown field "extra"
            an unknown entry field          | {"variant":"qemu-vtpm","measurements":{"4":{"expected":"AA","x":1}}} | unknown field "x"
            a missing variant               | {"measurements":{}}                                              | no "variant"
            an unknown variant              | {"variant":"sev-snp","measurements":{}}                          | unknown variant "sev-snp"
            a 31-byte value                 | {"variant":"qemu-vtpm","measurements":{"4":{"expected":"SHORT"}}} | 64 hex digits
            PCR 24                          | {"variant":"qemu-vtpm","measurements":{"24":{"expected":"AA"}}}  | outside 0..23
            a negative PCR                  | {"variant":"qemu-vtpm","measurements":{"-1":{"expected":"AA"}}}  | not a PCR index
            a non-boolean warnOnly          | {"variant":"qemu-vtpm","measurements":{"4":{"expected":"AA","warnOnly":"no"}}} | true or false
            warnOnly on PCR 15              | {"variant":"qemu-vtpm","measurements":{"15":{"expected":"AA","warnOnly":true}}} | PCR 15: "warnOnly" is refused on PCR 4, 9, 11, 12, 13, 15
            broken JSON                     | {"variant":                                                      | not valid JSON
            a duplicate key                 | {"variant":"qemu-vtpm","variant":"qemu-vtpm","measurements":{}}  | not valid JSON
            a JSON array                    | []                                                               | must be a JSON object
            """)
    void rejects(String what, String json, String fragment) {
        String full = json.replace("\"AA\"", "\"" + A + "\"").replace("\"SHORT\"", "\"" + A.substring(2) + "\"");
        MeasurementsException e = assertThrows(MeasurementsException.class,
                () -> Measurements.parse(full.getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    @DisplayName("a set read from JSON without PCR 15 (or any of 4, 9, 11, 12, 13) is refused, naming what is missing")
    void requiredPcrs() {
        String without15 = VALID.replace(",\n  \"15\": {\"expected\": \"" + ZERO + "\"}", "");
        assertTrue(!without15.contains("\"15\""), without15);
        MeasurementsException e = assertThrows(MeasurementsException.class,
                () -> Measurements.parse(without15.getBytes(StandardCharsets.UTF_8)));
        assertEquals("measurements file lacks PCR 15: a measurement set must cover PCR 4, 9, 11, 12, 13, 15", e.getMessage());
        MeasurementsException empty = assertThrows(MeasurementsException.class,
                () -> Measurements.parse("{\"variant\":\"qemu-vtpm\",\"measurements\":{}}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(empty.getMessage().startsWith("measurements file lacks PCR 4, 9, 11, 12, 13, 15"), empty.getMessage());
    }

    @Test
    @DisplayName("the version is read (0 when absent), written first, and must be a non-negative integer")
    void version() throws Exception {
        assertEquals(0, MeasurementSet.parse(VALID.getBytes(StandardCharsets.UTF_8)).version());
        String v7 = VALID.replace("{\"variant\"", "{\"version\": 7, \"variant\"");
        MeasurementSet m = MeasurementSet.parse(v7.getBytes(StandardCharsets.UTF_8));
        assertEquals(7, m.version());
        byte[] formatOne = MeasurementsJson.write(m.images().get(0).measurements(), 7, java.util.Optional.empty());
        assertTrue(new String(formatOne, StandardCharsets.UTF_8).startsWith("{\n  \"version\" : 7,"));
        assertEquals(new String(formatOne, StandardCharsets.UTF_8), new String(MeasurementsJson.write(
                MeasurementSet.parse(formatOne).images().get(0).measurements(), 7, java.util.Optional.empty()), StandardCharsets.UTF_8));
        for (String bad : new String[] {"-1", "1.5", "\"7\""}) {
            String json = VALID.replace("{\"variant\"", "{\"version\": " + bad + ", \"variant\"");
            MeasurementsException e = assertThrows(MeasurementsException.class,
                    () -> Measurements.parse(json.getBytes(StandardCharsets.UTF_8)), bad);
            assertTrue(e.getMessage().contains("\"version\" must be a non-negative integer"), e.getMessage());
        }
    }

    @Test
    @DisplayName("compare returns every enforced mismatch and every warnOnly mismatch as sentences")
    void compareReportsAll() throws Exception {
        Measurements m = Measurements.parse(VALID.getBytes(StandardCharsets.UTF_8));
        byte[] zeros = new byte[32];
        byte[] other = new byte[32];
        Arrays.fill(other, (byte) 0x12);

        byte[] a = java.util.HexFormat.of().parseHex(A);
        byte[] c = java.util.HexFormat.of().parseHex(C);
        MeasurementComparison result = m.compare(Map.of(4, a, 9, other, 11, c, 12, zeros, 13, zeros, 14, zeros));

        assertEquals(2, result.failures().size());
        assertEquals("PCR 9 (sha256) is 1212121212121212… rather than abababababababab…", result.failures().get(0));
        assertEquals("PCR 15 (sha256) is missing from the quote rather than 0000000000000000…", result.failures().get(1));
        assertEquals("PCR 14 (sha256) is 0000000000000000… rather than cdcdcdcdcdcdcdcd…", result.warnings().get(0));
    }
}
