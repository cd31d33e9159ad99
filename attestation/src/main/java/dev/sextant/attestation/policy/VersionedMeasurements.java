package dev.sextant.attestation.policy;

/**
 * A measurement set as an operator publishes it in a signed file: the set and the file's integer
 * {@code "version"} (0 when the file has none). A service that reloads signed files refuses a lower
 * version than the one in force, so an old, validly signed set (say, for an image with a known
 * flaw) cannot be replayed into it.
 */
public record VersionedMeasurements(long version, Measurements measurements) {
    public VersionedMeasurements {
        if (version < 0) {
            throw new IllegalArgumentException("a measurements version is a non-negative integer, not " + version);
        }
        if (measurements == null) {
            throw new IllegalArgumentException("measurements are required");
        }
    }

    /** The canonical JSON, with the version first. */
    public byte[] toJson() {
        return MeasurementsJson.write(measurements, version);
    }
}
