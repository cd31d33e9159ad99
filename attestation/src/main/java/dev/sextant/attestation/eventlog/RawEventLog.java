package dev.sextant.attestation.eventlog;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A parsed, unverified crypto-agile event log: the digest sizes its Spec ID header declares and
 * the events after it. Only {@link EventLogReplay} turns it into something trustworthy.
 */
public record RawEventLog(Map<Integer, Integer> digestSizes, List<RawEvent> events) {
    public RawEventLog {
        digestSizes = Collections.unmodifiableMap(new TreeMap<>(digestSizes));
        events = List.copyOf(events);
    }
}
