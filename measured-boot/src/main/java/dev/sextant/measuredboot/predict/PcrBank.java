package dev.sextant.measuredboot.predict;

import dev.sextant.attestation.digest.Sha256;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A simulated SHA-256 PCR bank (TPM 2.0 Part 1 §17.5: new = H(old || digest), all PCRs start at
 * zero after a reset) that records a described event for every extend, so a mismatch against a
 * real boot can be explained event by event.
 */
public final class PcrBank {
    private static final int DIGEST = 32;

    private final SortedMap<Integer, byte[]> values = new TreeMap<>();
    private final List<MeasuredEvent> events = new ArrayList<>();

    /** A bank tracking the given PCR indices, all zero. */
    public PcrBank(int... indices) {
        for (int i : indices) {
            values.put(i, new byte[DIGEST]);
        }
    }

    public void extend(int pcr, byte[] digest, String description) {
        byte[] old = values.get(pcr);
        if (old == null) {
            throw new IllegalArgumentException("PCR " + pcr + " is not tracked by this bank");
        }
        if (digest.length != DIGEST) {
            throw new IllegalArgumentException("a SHA-256 bank takes 32-byte digests, not " + digest.length);
        }
        values.put(pcr, Sha256.of(old, digest));
        events.add(new MeasuredEvent(pcr, digest, description));
    }

    /** Extends the SHA-256 of {@code data} (what a TPM2_PCR_Event / HashLogExtendEvent does). */
    public void measure(int pcr, byte[] data, String description) {
        extend(pcr, Sha256.of(data), description);
    }

    public byte[] value(int pcr) {
        byte[] v = values.get(pcr);
        if (v == null) {
            throw new IllegalArgumentException("PCR " + pcr + " is not tracked by this bank");
        }
        return v.clone();
    }

    public SortedMap<Integer, byte[]> values() {
        SortedMap<Integer, byte[]> copy = new TreeMap<>();
        values.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }

    public List<MeasuredEvent> events() { return Collections.unmodifiableList(events); }
}
