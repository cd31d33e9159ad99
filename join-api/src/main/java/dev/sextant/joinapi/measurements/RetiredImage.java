package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;

/**
 * What {@code measurements/retired/<imageVersion>} remembers of a retired image: the hex SHA-256 of its
 * PCR 4 ‖ 9 ‖ 11, the PCRs that tell images apart. A set that admits an image with this digest under
 * another version is re-admitting the retired image: bringing an image back means building it again, which
 * gives it a new version and so new PCRs (docs/image-upgrades.md, "Retirement is final").
 */
final class RetiredImage {
    private static final int[] IMAGE_PCRS = {4, 9, 11};

    private RetiredImage() {
    }

    static String digest(ImageMeasurements image) {
        byte[][] parts = new byte[IMAGE_PCRS.length][];
        for (int i = 0; i < IMAGE_PCRS.length; i++) {
            ExpectedValue value = image.measurements().measurements().get(IMAGE_PCRS[i]);
            // Every image of a parsed set has PCR 4, 9 and 11 (the set's own rule); this only names the broken rule.
            if (value == null) {
                throw new IllegalArgumentException("image " + image.imageVersion() + " has no PCR " + IMAGE_PCRS[i]);
            }
            parts[i] = value.expected();
        }
        return Sha256.hex(parts);
    }
}
