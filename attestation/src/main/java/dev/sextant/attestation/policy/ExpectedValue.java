package dev.sextant.attestation.policy;

/**
 * The expected SHA-256 value of one PCR. {@code warnOnly} mismatches are reported but accepted,
 * which lets an operator roll out a change to a PCR before enforcing it.
 */
public record ExpectedValue(byte[] expected, boolean warnOnly) {
    public ExpectedValue {
        expected = expected.clone();
    }

    @Override
    public byte[] expected() { return expected.clone(); }
}
