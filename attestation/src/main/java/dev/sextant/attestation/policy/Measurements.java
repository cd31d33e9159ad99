package dev.sextant.attestation.policy;

import dev.sextant.attestation.Variant;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Expected SHA-256 PCR values for one variant: the policy a verifier enforces. Read from
 * {@code {"variant": "qemu-vtpm", "measurements": {"<pcr>": {"expected": "<hex>", "warnOnly": false}}}}
 * by {@link MeasurementsJson}; PCRs not listed are not checked.
 */
public record Measurements(Variant variant, SortedMap<Integer, ExpectedValue> measurements) {
    public static final int SHA256_SIZE = 32;
    public static final int MAX_PCR = 23;

    public Measurements {
        if (variant == null) {
            throw new IllegalArgumentException("measurements need a variant");
        }
        for (Map.Entry<Integer, ExpectedValue> e : measurements.entrySet()) {
            if (e.getKey() < 0 || e.getKey() > MAX_PCR || e.getValue().expected().length != SHA256_SIZE) {
                throw new IllegalArgumentException("PCR " + e.getKey() + " needs a 32-byte value and an index in 0..23");
            }
        }
        measurements = Collections.unmodifiableSortedMap(new TreeMap<>(measurements));
    }

    /** Parses and validates the JSON form; see {@link MeasurementsJson}. */
    public static Measurements parse(byte[] json) throws MeasurementsException {
        return MeasurementsJson.parse(json);
    }

    /** This set with {@code pcr} enforced at {@code value}, whatever it said there before. */
    public Measurements enforcing(int pcr, byte[] value) {
        TreeMap<Integer, ExpectedValue> values = new TreeMap<>(measurements);
        values.put(pcr, new ExpectedValue(value, false));
        return new Measurements(variant, values);
    }

    /** This set without {@code pcr}: a verifier that checks that PCR itself, against what the set cannot know. */
    public Measurements ignoring(int pcr) {
        TreeMap<Integer, ExpectedValue> values = new TreeMap<>(measurements);
        values.remove(pcr);
        return new Measurements(variant, values);
    }

    public byte[] toJson() {
        return MeasurementsJson.write(this);
    }

    /**
     * Compares every expected PCR with the quoted SHA-256 values; never stops at the first mismatch.
     * Values are compared in constant time after an exact length check.
     */
    public MeasurementComparison compare(Map<Integer, byte[]> quotedSha256) {
        List<String> failures = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        measurements.forEach((pcr, expected) -> {
            byte[] quoted = quotedSha256.get(pcr);
            byte[] want = expected.expected();
            if (MessageDigest.isEqual(quoted, want)) {
                return;
            }
            String is = quoted == null ? "is missing from the quote" : "is " + shortHex(quoted);
            String sentence = "PCR " + pcr + " (sha256) " + is + " rather than " + shortHex(want);
            (expected.warnOnly() ? warnings : failures).add(sentence);
        });
        return new MeasurementComparison(failures, warnings);
    }

    /** First eight bytes in hex: enough to tell values apart in a message, short enough to read. */
    static String shortHex(byte[] value) {
        String hex = HexFormat.of().formatHex(value);
        return hex.length() > 16 ? hex.substring(0, 16) + "…" : hex;
    }
}
