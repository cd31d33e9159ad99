package dev.sextant.attestation.policy;

import java.util.regex.Pattern;

/**
 * One image a measurement set names: its version (what {@code sextant image build --image-version} wrote
 * into its os-release) and the PCR values predicted from it.
 */
public record ImageMeasurements(String imageVersion, Measurements measurements) {
    /** The version a format-1 set's one image gets: it was written before images had versions. */
    public static final String UNVERSIONED = "unversioned";
    /** os-release's rule for IMAGE_VERSION; the image builder holds its versions to it too. */
    private static final Pattern VERSION = Pattern.compile("[0-9a-z][0-9a-z._-]{0,63}");

    public ImageMeasurements {
        checkedVersion(imageVersion);
        if (measurements == null) {
            throw new IllegalArgumentException("image " + imageVersion + " needs its measurements");
        }
    }

    /** {@code version} if os-release would take it as IMAGE_VERSION; else an error saying the rule. */
    public static String checkedVersion(String version) {
        if (version == null || !VERSION.matcher(version).matches()) {
            throw new IllegalArgumentException("an image version is 1 to 64 characters of 0-9, a-z, '.', '_' and '-',"
                    + " starting with a digit or letter (os-release's IMAGE_VERSION), not \"" + version + "\"");
        }
        return version;
    }
}
