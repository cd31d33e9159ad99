package dev.sextant.attestation.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * A measurement set as an operator publishes it in a signed file: the set, the file's integer
 * {@code "version"} (0 when the file has none) and, optionally, {@code "nextKey"}: the public key that
 * signs the sets after this one. A service that reloads signed files refuses a lower version than the
 * one in force, so an old, validly signed set (say, for an image with a known flaw) cannot be replayed
 * into it. A cluster pins the key its sets are signed with; only a set signed by the pinned key can
 * name its successor, and that set moves the pin (a key rotation).
 */
public record VersionedMeasurements(long version, Measurements measurements, Optional<MeasurementsKey> nextKey) {
    public VersionedMeasurements {
        if (version < 0) {
            throw new IllegalArgumentException("a measurements version is a non-negative integer, not " + version);
        }
        if (measurements == null) {
            throw new IllegalArgumentException("measurements are required");
        }
        Objects.requireNonNull(nextKey, "nextKey");
    }

    /** A set that names no next key: its signing key stays the cluster's. */
    public VersionedMeasurements(long version, Measurements measurements) {
        this(version, measurements, Optional.empty());
    }

    public VersionedMeasurements withNextKey(MeasurementsKey key) {
        return new VersionedMeasurements(version, measurements, Optional.of(key));
    }

    /** The canonical JSON, with the version first and the next key (when named) last. */
    public byte[] toJson() {
        return MeasurementsJson.write(measurements, version, nextKey);
    }
}
