package dev.sextant.attestation.policy;

import dev.sextant.attestation.Variant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("A measurement set: the images a cluster admits and the ones it retired (format 2)")
class MeasurementSetTest {
    private static final String ZERO = "00".repeat(32);

    /** An image's measurements JSON whose PCR 4, 9 and 11 are {@code fill} repeated. */
    private static String image(String fill) {
        String v = fill.repeat(32);
        return """
                {"4": {"expected": "%s"}, "9": {"expected": "%s"}, "11": {"expected": "%s"},
                 "12": {"expected": "%s"}, "13": {"expected": "%s"}, "15": {"expected": "%s"}}""".formatted(v, v, v, ZERO, ZERO, ZERO);
    }

    private static final String ROLLOUT = """
            {"format": 2, "version": 12, "variant": "qemu-vtpm",
             "images": [{"imageVersion": "1.0", "measurements": %s}, {"imageVersion": "2.0", "measurements": %s}],
             "retired": [{"imageVersion": "0.9", "measurements": %s}]}
            """.formatted(image("aa"), image("bb"), image("99"));

    private static MeasurementSet parse(String json) throws MeasurementsException {
        return MeasurementSet.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<Integer, byte[]> quoted(String fill) {
        Map<Integer, byte[]> pcrs = new TreeMap<>();
        for (int pcr = 0; pcr < 24; pcr++) {
            pcrs.put(pcr, new byte[32]);
        }
        for (int pcr : new int[] {4, 9, 11}) {
            pcrs.put(pcr, HexFormat.of().parseHex(fill.repeat(32)));
        }
        return pcrs;
    }

    @Test
    @DisplayName("reads version, variant, admitted and retired images, and writes them back identically")
    void parsesAndRoundTrips() throws Exception {
        MeasurementSet set = parse(ROLLOUT);

        assertEquals(12, set.version());
        assertEquals(Variant.QEMU_VTPM, set.variant());
        assertEquals(List.of("1.0", "2.0"), set.images().stream().map(ImageMeasurements::imageVersion).toList());
        assertEquals(List.of("0.9"), set.retired().stream().map(ImageMeasurements::imageVersion).toList());
        assertEquals(new String(set.toJson(), StandardCharsets.UTF_8), new String(MeasurementSet.parse(set.toJson()).toJson(), StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("carries the next signing key in format 2, and keeps a format-1 file's")
    void carriesTheNextKey() throws Exception {
        MeasurementsKey next = MeasurementsKey.of(MeasurementsFileTest.pem(MeasurementsFileTest.keys("Ed25519").getPublic()));
        MeasurementSet set = parse(ROLLOUT);
        MeasurementSet rotating = new MeasurementSet(set.version(), set.variant(), set.images(), set.retired(), Optional.of(next));

        assertEquals(next.fingerprint(), MeasurementSet.parse(rotating.toJson()).nextKey().orElseThrow().fingerprint());
        byte[] formatOne = MeasurementsJson.write(set.images().get(0).measurements(), 3, Optional.of(next));
        assertEquals(next.fingerprint(), MeasurementSet.parse(formatOne).nextKey().orElseThrow().fingerprint());
    }

    @Test
    @DisplayName("reads a format-1 file as a set of one unversioned image, keeping its version")
    void readsFormatOne() throws Exception {
        MeasurementSet set = parse("{\"version\": 5, \"variant\": \"qemu-vtpm\", \"measurements\": " + image("aa") + "}");

        assertEquals(5, set.version());
        assertEquals(List.of(ImageMeasurements.UNVERSIONED), set.images().stream().map(ImageMeasurements::imageVersion).toList());
        assertEquals(List.of(), set.retired());
    }

    @Test
    @DisplayName("matches a node to the admitted image it runs, and names a retired one it still runs")
    void matches() throws Exception {
        MeasurementSet set = parse(ROLLOUT);

        assertEquals("2.0", assertInstanceOf(ImageMatch.Admitted.class, set.match(quoted("bb"))).image().imageVersion());
        ImageMatch.Retired retired = assertInstanceOf(ImageMatch.Retired.class, set.match(quoted("99")));
        assertEquals("the node runs image 0.9, retired by measurement set version 12", retired.sentence());
        ImageMatch.Mismatch none = assertInstanceOf(ImageMatch.Mismatch.class, set.match(quoted("cc")));
        assertTrue(none.sentence().startsWith("image 1.0: PCR 4 (sha256) is cccccccccccccccc… rather than aaaaaaaaaaaaaaaa…"),
                none.sentence());
        assertTrue(none.sentence().contains("; image 2.0: PCR 4 (sha256)"), none.sentence());
    }

    @Test
    @DisplayName("names a retired image by its PCR 4, 9 and 11 alone: a node the host booted from an old disk is told so"
            + " also before its lock, when the cluster's set expects PCR 15 marked and the node's is still zero")
    void retiredImageKnownByItsImagePcrs() throws Exception {
        MeasurementSet cluster = parse(ROLLOUT).enforcing(15, HexFormat.of().parseHex("15".repeat(32)));

        ImageMatch.Retired retired = assertInstanceOf(ImageMatch.Retired.class, cluster.match(quoted("99")));
        assertEquals("0.9", retired.image().imageVersion());
        // An admitted image still needs every enforced PCR: the same unlocked node on 2.0 is a mismatch, not admitted.
        ImageMatch.Mismatch unlocked = assertInstanceOf(ImageMatch.Mismatch.class, cluster.match(quoted("bb")));
        assertTrue(unlocked.sentence().contains("PCR 15"), unlocked.sentence());
    }

    @ParameterizedTest(name = "rejects {0}")
    @CsvSource(delimiter = '|', textBlock = """
            another format                      | {"format": 3, "variant": "qemu-vtpm", "images": []}                            | "format" must be 2
            images without a format             | {"variant": "qemu-vtpm", "images": []}                                        | "format" must be 2
            an unknown top-level field          | {"format": 2, "variant": "qemu-vtpm", "images": [], "measurements": {}}        | unknown field "measurements"
            no image at all                     | {"format": 2, "variant": "qemu-vtpm", "images": []}                            | admits at least one image
            images that are no array            | {"format": 2, "variant": "qemu-vtpm", "images": {}}                            | "images" must be a JSON array
            an image without a version          | {"format": 2, "variant": "qemu-vtpm", "images": [{"measurements": {}}]}        | "images"[0] has no "imageVersion" string
            an image version os-release refuses | {"format": 2, "variant": "qemu-vtpm", "images": [{"imageVersion": "V 1", "measurements": IMAGE_AA}]} | "images"[0]: an image version is
            an image that covers PCR 4 alone    | {"format": 2, "variant": "qemu-vtpm", "images": [{"imageVersion": "1", "measurements": {"4": {"expected": "Z64"}}}]} | image 1 lacks PCR 9, 11, 12, 13, 15
            a version named twice               | {"format": 2, "variant": "qemu-vtpm", "images": [{"imageVersion": "1", "measurements": IMAGE_AA}], "retired": [{"imageVersion": "1", "measurements": IMAGE_BB}]} | image version 1 is named twice
            two images with the same PCRs       | {"format": 2, "variant": "qemu-vtpm", "images": [{"imageVersion": "1", "measurements": IMAGE_AA}], "retired": [{"imageVersion": "0", "measurements": IMAGE_AA}]} | images 1 and 0 have the same PCR 4, 9 and 11
            """)
    void rejects(String what, String json, String fragment) {
        String filled = json.replace("IMAGE_AA", image("aa")).replace("IMAGE_BB", image("bb")).replace("Z64", ZERO);
        MeasurementsException e = assertThrows(MeasurementsException.class, () -> parse(filled));
        assertTrue(e.getMessage().contains(fragment), what + ": " + e.getMessage());
    }

    @Test
    @DisplayName("refuses warnOnly on a required PCR of a retired image as of an admitted one")
    void requiredPcrsHoldForRetiredImagesToo() {
        String warnOnly = image("bb").replace("\"15\": {\"expected\": \"" + ZERO + "\"}",
                "\"15\": {\"expected\": \"" + ZERO + "\", \"warnOnly\": true}");
        MeasurementsException e = assertThrows(MeasurementsException.class, () -> parse(
                "{\"format\": 2, \"variant\": \"qemu-vtpm\", \"images\": [{\"imageVersion\": \"1\", \"measurements\": " + image("aa")
                        + "}], \"retired\": [{\"imageVersion\": \"0\", \"measurements\": " + warnOnly + "}]}"));
        assertTrue(e.getMessage().contains("\"warnOnly\" is refused on PCR 4, 9, 11, 12, 13, 15"), e.getMessage());
    }
}
