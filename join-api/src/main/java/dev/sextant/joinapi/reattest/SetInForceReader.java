package dev.sextant.joinapi.reattest;

import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.joinapi.measurements.ReloadingVerifier;
import java.util.function.Supplier;

/**
 * The one place re-attestation reads the join service's set in force: the set its joins are checked
 * against, read again at every round, so a newly admitted (or retiring) set applies from the next round.
 * The reloading verifier still holds a format-1 set here (one image, unversioned); when it gives the
 * format-2 {@link MeasurementSet} (issue 39), this returns it as it is.
 */
final class SetInForceReader implements Supplier<MeasurementSet> {
    private final ReloadingVerifier verifier;
    private Measurements lastRead; // guarded by this: one conversion per set, so the verifier cache holds
    private MeasurementSet lastSet;

    SetInForceReader(ReloadingVerifier verifier) {
        this.verifier = verifier;
    }

    @Override
    public synchronized MeasurementSet get() {
        Measurements inForce = verifier.measurements();
        if (inForce != lastRead) {
            lastSet = MeasurementSet.of(verifier.version(), inForce, ImageMeasurements.UNVERSIONED);
            lastRead = inForce;
        }
        return lastSet;
    }
}
