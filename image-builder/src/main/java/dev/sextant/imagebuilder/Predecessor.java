package dev.sextant.imagebuilder;

import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.tpm.RememberedDiskWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * An earlier image an upgrade image accepts the disk records of: its version and its writer digest
 * ({@link RememberedDiskWriter}), the digest a node of that image wrote its TPM's state-disk record
 * under. Computed from the earlier build's predicted PCRs 4, 9, 11, 12 and 13 (15 zero, as before a
 * node lock), exactly as that node computed it from the PCRs it read.
 *
 * @param imageVersion the earlier image's version (its set's, else its {@code image-version} file's)
 * @param writer       the writer digest, 64 lower-case hex characters
 */
public record Predecessor(String imageVersion, String writer) {
    public Predecessor {
        ImageMeasurements.checkedVersion(imageVersion);
        if (!writer.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("a writer digest is 64 lower-case hex characters, not \"" + writer + "\"");
        }
    }

    /**
     * The image an earlier {@code sextant image build} left in {@code outDir}: its measurement file
     * (format 1 or 2) must admit exactly one image, the one built there.
     */
    public static Predecessor of(Path outDir) throws BuildException {
        Path file = outDir.resolve(ImageBuilder.MEASUREMENTS);
        if (!Files.isRegularFile(file)) {
            throw new BuildException(outDir + " holds no " + ImageBuilder.MEASUREMENTS
                    + ": pass the output directory of an earlier `sextant image build`");
        }
        MeasurementSet set;
        try {
            set = MeasurementSet.parse(Files.readAllBytes(file));
        } catch (IOException | MeasurementsException e) {
            throw new BuildException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (set.images().size() != 1) {
            throw new BuildException(file + " admits " + set.images().size() + " images, not one: pass the output"
                    + " directory of the build of the one image to upgrade from");
        }
        ImageMeasurements image = set.images().get(0);
        if (image.imageVersion().equals(ImageMeasurements.UNVERSIONED)) {
            image = new ImageMeasurements(ImageVersion.stored(outDir).map(ImageVersion::value).orElse(image.imageVersion()),
                    image.measurements());
        }
        try {
            return of(image);
        } catch (IllegalArgumentException e) {
            throw new BuildException(file + ": " + e.getMessage(), e);
        }
    }

    /** An image as a measurement set admits it: its version, and the writer digest of its PCRs. */
    public static Predecessor of(ImageMeasurements image) {
        Map<Integer, byte[]> pcrs = new HashMap<>();
        for (Map.Entry<Integer, ExpectedValue> e : image.measurements().measurements().entrySet()) {
            pcrs.put(e.getKey(), e.getValue().expected());
        }
        return new Predecessor(image.imageVersion(), HexFormat.of().formatHex(RememberedDiskWriter.digestBeforeLock(pcrs)));
    }

    @Override
    public String toString() {
        return imageVersion + " (writer " + writer + ")";
    }
}
