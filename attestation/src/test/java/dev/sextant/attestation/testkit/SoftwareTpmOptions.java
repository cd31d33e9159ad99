package dev.sextant.attestation.testkit;

import dev.sextant.attestation.Variant;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a {@link SoftwareTpmAttester} measures and which rules it breaks.
 *
 * @param variant   the variant written into documents
 * @param pcrs      chosen SHA-256 PCR values; PCRs not listed hold their reset value. PCRs that
 *                  have {@code events} take the value the events extend to instead.
 * @param events    event log entries; no event log is attached when empty
 * @param mutations rules to break (see {@link Mutation})
 */
public record SoftwareTpmOptions(Variant variant, SortedMap<Integer, byte[]> pcrs, List<TestEvent> events,
                                 Set<Mutation> mutations) {
    public SoftwareTpmOptions {
        pcrs = Collections.unmodifiableSortedMap(new TreeMap<>(pcrs));
        events = List.copyOf(events);
        mutations = mutations.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(mutations));
    }

    /** A valid node: qemu-vtpm, PCRs at their reset values, a small event log in PCRs 4, 9 and 11. */
    public static SoftwareTpmOptions defaults() {
        List<TestEvent> events = List.of(
                new TestEvent(4, TestEvent.EV_IPL, "uki.efi".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(9, TestEvent.EV_IPL, "initrd".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(11, TestEvent.EV_IPL, ".linux".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(11, TestEvent.EV_IPL, ".cmdline".getBytes(StandardCharsets.UTF_8)));
        return new SoftwareTpmOptions(Variant.QEMU_VTPM, new TreeMap<>(), events, Set.of());
    }

    public SoftwareTpmOptions with(Mutation m) {
        Set<Mutation> more = EnumSet.noneOf(Mutation.class);
        more.addAll(mutations);
        more.add(m);
        return new SoftwareTpmOptions(variant, pcrs, events, more);
    }

    public SoftwareTpmOptions withPcr(int pcr, byte[] value) {
        SortedMap<Integer, byte[]> more = new TreeMap<>(pcrs);
        more.put(pcr, value.clone());
        return new SoftwareTpmOptions(variant, more, events, mutations);
    }

    public SoftwareTpmOptions withEvents(List<TestEvent> newEvents) {
        return new SoftwareTpmOptions(variant, pcrs, new ArrayList<>(newEvents), mutations);
    }

    public boolean has(Mutation m) { return mutations.contains(m); }

    Map<Integer, byte[]> chosenPcrs() { return pcrs; }
}
