package dev.sextant.imagebuilder;

import dev.sextant.attestation.policy.ImageMeasurements;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * An image's version, as mkosi writes it into the image's os-release ({@code IMAGE_VERSION}), which
 * systemd-stub measures into PCR 11: two images of different versions never share their PCRs, so the
 * version a verifier names is the one the node runs. The characters are os-release's rule for
 * {@code IMAGE_VERSION}; the value also becomes a file name and an etcd key, which they keep safe.
 */
public record ImageVersion(String value) {
    public static final String OUT_FILE = "image-version";
    private static final DateTimeFormatter BUILD_TIME = DateTimeFormatter.ofPattern("yyyyMMdd.HHmmss").withZone(ZoneOffset.UTC);

    public ImageVersion {
        ImageMeasurements.checkedVersion(value);
    }

    /** The version of an image built at {@code time} without one given: its UTC time, {@code YYYYMMDD.HHMMSS}. */
    public static ImageVersion builtAt(Instant time) {
        return new ImageVersion(BUILD_TIME.format(time));
    }

    /** The version recorded beside the image in {@code outDir}, if a complete build left one. */
    static Optional<ImageVersion> stored(Path outDir) {
        Path file = outDir.resolve(OUT_FILE);
        try {
            return Files.isRegularFile(file) ? Optional.of(new ImageVersion(Files.readString(file).trim())) : Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
