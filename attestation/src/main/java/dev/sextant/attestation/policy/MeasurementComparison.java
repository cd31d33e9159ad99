package dev.sextant.attestation.policy;

import java.util.List;

/**
 * Outcome of comparing quoted PCRs with {@link Measurements}: every enforced mismatch and every
 * warnOnly mismatch, each a sentence such as "PCR 9 (sha256) is ab12… rather than cd34…".
 */
public record MeasurementComparison(List<String> failures, List<String> warnings) {
    public MeasurementComparison {
        failures = List.copyOf(failures);
        warnings = List.copyOf(warnings);
    }

    public boolean passed() { return failures.isEmpty(); }
}
