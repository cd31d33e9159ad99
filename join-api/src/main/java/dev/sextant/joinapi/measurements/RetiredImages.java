package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import java.io.ByteArrayOutputStream;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The images a join service knows to be retired: per image version, the hex SHA-256 of its PCR 4 ‖ 9 ‖ 11
 * (the PCRs that tell images apart), as {@code measurements/retired/<imageVersion>} holds it in etcd
 * (docs/image-upgrades.md). Retirement is final: what is in here never leaves, so a later set that lists
 * one of these under {@code images}, by version or by PCRs, is refused whatever its own version
 * ({@link SetAdmission}).
 */
public record RetiredImages(Map<String, String> digestByVersion) {
    private static final int[] IMAGE_PCRS = {4, 9, 11};

    public RetiredImages {
        digestByVersion = Collections.unmodifiableMap(new LinkedHashMap<>(digestByVersion));
    }

    public static RetiredImages none() {
        return new RetiredImages(Map.of());
    }

    /** What {@code set} retires. */
    public static RetiredImages of(MeasurementSet set) {
        return none().with(set);
    }

    /** These and what {@code set} retires (a version retired before keeps the digest recorded first). */
    public RetiredImages with(MeasurementSet set) {
        Map<String, String> all = new LinkedHashMap<>(digestByVersion);
        for (ImageMeasurements image : set.retired()) {
            all.putIfAbsent(image.imageVersion(), digest(image.measurements()));
        }
        return new RetiredImages(all);
    }

    /** The retired version whose name or PCR digest {@code image} carries, if any. */
    public Optional<String> match(ImageMeasurements image) {
        if (digestByVersion.containsKey(image.imageVersion())) {
            return Optional.of(image.imageVersion());
        }
        String digest = digest(image.measurements());
        return digestByVersion.entrySet().stream().filter(e -> e.getValue().equals(digest)).map(Map.Entry::getKey).findFirst();
    }

    /** Hex SHA-256 of the expected values of PCR 4, 9 and 11, concatenated in that order. */
    public static String digest(Measurements measurements) {
        ByteArrayOutputStream concatenated = new ByteArrayOutputStream();
        for (int pcr : IMAGE_PCRS) {
            ExpectedValue value = measurements.measurements().get(pcr);
            if (value == null) { // a parsed set always has them; a set built in code must too
                throw new IllegalArgumentException("an image without PCR " + pcr + " cannot be told apart from others");
            }
            concatenated.writeBytes(value.expected());
        }
        return Sha256.hex(concatenated.toByteArray());
    }
}
