package dev.sextant.measuredboot.predict;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/** Predicted PCR values of the SHA-256 bank, the described events behind them, and the stub release used. */
public record Prediction(SortedMap<Integer, byte[]> pcrs, List<MeasuredEvent> events, StubVersion stub) {

    public Prediction {
        SortedMap<Integer, byte[]> copy = new TreeMap<>();
        pcrs.forEach((k, v) -> copy.put(k, v.clone()));
        pcrs = Collections.unmodifiableSortedMap(copy);
        events = List.copyOf(events);
    }

    public byte[] pcr(int index) {
        byte[] v = pcrs.get(index);
        if (v == null) {
            throw new IllegalArgumentException("PCR " + index + " is not predicted");
        }
        return v.clone();
    }

    /** Every predicted PCR as an enforced (not warn-only) expected value of the qemu-vtpm variant. */
    public Measurements measurements() {
        SortedMap<Integer, ExpectedValue> m = new TreeMap<>();
        pcrs.forEach((k, v) -> m.put(k, new ExpectedValue(v, false)));
        return new Measurements(Variant.QEMU_VTPM, m);
    }
}
