package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import java.util.Optional;

/**
 * Whether a join service may take {@code offered} as its measurement set, as far as retirement goes: an image
 * once retired is never admitted again, whatever the version of the set that lists it (docs/image-upgrades.md,
 * "Retirement is final"). A retired image is recognised by its version and by its PCR 4 ‖ 9 ‖ 11, so
 * renaming it does not bring it back: bringing an image back means building it again under a new version (and
 * so other PCRs). The signature, the pinned key and the version floor are checked elsewhere
 * ({@link ReloadingVerifier}, {@link MeasurementsFloor}); this is the one statement of the retirement rule that
 * every path taking a set (the reload of the mounted files, {@code MeasurementsService.Publish}) calls.
 */
public final class SetAdmission {
    private SetAdmission() {}

    /**
     * Passes when {@code offered} admits no image {@code inForce} lists as retired.
     *
     * @throws Refusal IMAGE_RETIRED naming the image and the set that retired it
     */
    public static void check(MeasurementSet inForce, MeasurementSet offered) throws Refusal {
        check(RetiredImages.of(inForce), inForce.version(), offered);
    }

    /**
     * Passes when {@code offered} admits none of {@code retired} (all this service, or the cluster store, knows
     * to be retired).
     *
     * @throws Refusal IMAGE_RETIRED naming the image
     */
    public static void check(RetiredImages retired, MeasurementSet offered) throws Refusal {
        check(retired, -1, offered);
    }

    private static void check(RetiredImages retired, long retiredBy, MeasurementSet offered) throws Refusal {
        for (ImageMeasurements image : offered.images()) {
            Optional<String> match = retired.match(image);
            if (match.isPresent()) {
                String by = retiredBy >= 0 ? " by measurement set version " + retiredBy : "";
                String as = match.get().equals(image.imageVersion()) ? "" : " (its PCR 4, 9 and 11 are those of image " + match.get() + ")";
                throw new Refusal(JoinRefusal.IMAGE_RETIRED, "measurement set version " + offered.version() + " admits image "
                        + image.imageVersion() + as + ", retired" + by + ": a retired image is never admitted again; "
                        + "build it again under a new version");
            }
        }
    }
}
