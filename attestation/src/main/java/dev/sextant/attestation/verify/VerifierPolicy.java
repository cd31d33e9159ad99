package dev.sextant.attestation.verify;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.Measurements;

/**
 * What a {@link DocumentVerifier} enforces: the variant and expected PCRs (from {@link Measurements})
 * and how AKs are trusted. Validated when built, so a verifier never runs with a half policy.
 */
public record VerifierPolicy(Measurements measurements, AkTrust akTrust) {
    public VerifierPolicy {
        if (measurements == null || akTrust == null) {
            throw new IllegalArgumentException("a verifier policy needs measurements and an AK trust mechanism");
        }
    }

    public Variant variant() { return measurements.variant(); }
}
