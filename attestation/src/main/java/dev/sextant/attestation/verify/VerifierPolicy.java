package dev.sextant.attestation.verify;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;

/**
 * What a {@link DocumentVerifier} enforces: the variant and the images whose PCRs it admits (a
 * {@link MeasurementSet}) and how AKs are trusted. Validated when built, so a verifier never runs with
 * a half policy.
 */
public record VerifierPolicy(MeasurementSet set, AkTrust akTrust) {
    public VerifierPolicy {
        if (set == null || akTrust == null) {
            throw new IllegalArgumentException("a verifier policy needs measurements and an AK trust mechanism");
        }
    }

    /** A policy of one image's measurements (unversioned): a node's view of its own image, a test's. */
    public VerifierPolicy(Measurements measurements, AkTrust akTrust) {
        this(measurements == null ? null : MeasurementSet.of(measurements), akTrust);
    }

    public Variant variant() { return set.variant(); }
}
