package dev.sextant.attestation.policy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("The sets a rollout publishes: one that admits the new image beside the old, then one that retires the old")
class MeasurementSetRolloutTest {
    private static final String ZERO = "00".repeat(32);

    private static String image(String fill) {
        String v = fill.repeat(32);
        return """
                {"4": {"expected": "%s"}, "9": {"expected": "%s"}, "11": {"expected": "%s"},
                 "12": {"expected": "%s"}, "13": {"expected": "%s"}, "15": {"expected": "%s"}}""".formatted(v, v, v, ZERO, ZERO, ZERO);
    }

    private static MeasurementSet set(String images) throws MeasurementsException {
        return MeasurementSet.parse(("""
                {"format": 2, "version": 7, "variant": "qemu-vtpm", "images": [%s], "retired": []}
                """).formatted(images).getBytes(StandardCharsets.UTF_8));
    }

    private static ImageMeasurements imageB() throws MeasurementsException {
        return set("{\"imageVersion\": \"b\", \"measurements\": " + image("bb") + "}").images().get(0);
    }

    private static List<String> versions(List<ImageMeasurements> images) {
        return images.stream().map(ImageMeasurements::imageVersion).toList();
    }

    @Test
    @DisplayName("the rollout set admits the old image and the new under the next version; admitting the new again adds nothing")
    void admitsBoth() throws Exception {
        MeasurementSet inForce = set("{\"imageVersion\": \"a\", \"measurements\": " + image("aa") + "}");
        MeasurementSet rollout = inForce.admitting(imageB(), 8);

        assertEquals(8, rollout.version());
        assertEquals(List.of("a", "b"), versions(rollout.images()));
        assertEquals(List.of("a", "b"), versions(rollout.admitting(imageB(), 9).images()));
    }

    @Test
    @DisplayName("the retiring set admits only the new image and keeps the old one's PCRs under retired")
    void retiresTheOld() throws Exception {
        MeasurementSet rollout = set("{\"imageVersion\": \"a\", \"measurements\": " + image("aa") + "}").admitting(imageB(), 8);
        MeasurementSet retiring = rollout.retiringAllBut("b", 9);

        assertEquals(List.of("b"), versions(retiring.images()));
        assertEquals(List.of("a"), versions(retiring.retired()));
        assertEquals(9, retiring.version());
        assertThrows(IllegalArgumentException.class, () -> rollout.retiringAllBut("c", 9));
    }
}
