package dev.sextant.joinapi.measurements;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Retirement is final: a set that admits an image retired before is refused, whatever its version")
class SetAdmissionTest {
    private static final ImageMeasurements OLD = image("20261101.120000", 1);
    private static final ImageMeasurements NEW = image("20261127.101500", 2);
    private static final ImageMeasurements NEWER = image("20261203.090000", 3);
    private static final MeasurementSet RETIRING = new MeasurementSet(12, Variant.QEMU_VTPM, List.of(NEW), List.of(OLD));

    static ImageMeasurements image(String version, int seed) {
        TreeMap<Integer, ExpectedValue> pcrs = new TreeMap<>();
        for (int pcr : new int[]{4, 9, 11, 12, 13, 15}) {
            byte[] value = new byte[32];
            Arrays.fill(value, (byte) (pcr < 12 ? seed : 0));
            pcrs.put(pcr, new ExpectedValue(value, false));
        }
        return new ImageMeasurements(version, new Measurements(Variant.QEMU_VTPM, pcrs));
    }

    @Test
    @DisplayName("a set admitting the retired version again, at a higher or a lower version: IMAGE_RETIRED naming it and the retiring set")
    void retiredVersionReadmitted() {
        for (long version : new long[]{13, 11}) {
            MeasurementSet back = new MeasurementSet(version, Variant.QEMU_VTPM, List.of(NEW, OLD), List.of());
            Refusal r = assertThrows(Refusal.class, () -> SetAdmission.check(RETIRING, back));
            assertEquals(JoinRefusal.IMAGE_RETIRED, r.reason());
            assertTrue(r.getMessage().contains("admits image 20261101.120000, retired by measurement set version 12"), r.getMessage());
        }
    }

    @Test
    @DisplayName("the retired image renamed (its PCR 4, 9 and 11 under a new version): refused, naming the version it was retired as")
    void retiredPcrsUnderANewName() {
        ImageMeasurements renamed = new ImageMeasurements("20261204.000000", OLD.measurements());
        MeasurementSet back = new MeasurementSet(13, Variant.QEMU_VTPM, List.of(renamed), List.of());
        Refusal r = assertThrows(Refusal.class, () -> SetAdmission.check(RETIRING, back));
        assertTrue(r.getMessage().contains("its PCR 4, 9 and 11 are those of image 20261101.120000"), r.getMessage());
    }

    @Test
    @DisplayName("a set that keeps the retired image retired, or forgets it, and admits other images passes")
    void otherImagesPass() {
        assertDoesNotThrow(() -> SetAdmission.check(RETIRING, new MeasurementSet(13, Variant.QEMU_VTPM, List.of(NEW, NEWER), List.of(OLD))));
        assertDoesNotThrow(() -> SetAdmission.check(RETIRING, new MeasurementSet(13, Variant.QEMU_VTPM, List.of(NEWER), List.of())));
    }

    @Test
    @DisplayName("what is retired accumulates and keeps the digest of PCR 4 ‖ 9 ‖ 11 first recorded")
    void accumulates() {
        RetiredImages retired = RetiredImages.of(RETIRING)
                .with(new MeasurementSet(14, Variant.QEMU_VTPM, List.of(NEWER), List.of(NEW)));
        assertEquals(List.of("20261101.120000", "20261127.101500"), List.copyOf(retired.digestByVersion().keySet()));
        assertEquals(Map.of("20261101.120000", RetiredImages.digest(OLD.measurements())).get("20261101.120000"),
                retired.digestByVersion().get("20261101.120000"));
        assertEquals(64, retired.digestByVersion().get("20261127.101500").length());
        assertThrows(Refusal.class, () -> SetAdmission.check(retired,
                new MeasurementSet(15, Variant.QEMU_VTPM, List.of(OLD), List.of())));
    }
}
