package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * TEST DOUBLE of the cluster store: the bindings in a sorted map, with etcd's transaction semantics
 * as {@link EtcdBindingStore} uses them (a create-all writes every key or none and reads the present
 * ones in the same step; one revision per write; a key's revision of creation is its modification,
 * since bindings are never rewritten). Synchronized: one transaction at a time, as etcd orders them.
 * Unit tests use it where the point is the rules, and the join benchmark as its baseline. In a
 * Micronaut context it replaces the etcd store when {@value #PROPERTY} is true (tests only: the class
 * is not on the service's class path).
 */
@Singleton
@Replaces(EtcdBindingStore.class)
@Requires(property = InMemoryBindingStoreDouble.PROPERTY, value = "true")
public class InMemoryBindingStoreDouble implements BindingStore {
    public static final String PROPERTY = "sextant.test.in-memory-binding-store";

    private record Entry(String value, long revision) {}

    private final TreeMap<String, Entry> entries = new TreeMap<>();
    private long revision = 1;
    private long roundTrips;
    private boolean down;
    private Entry measurementsFloor;
    private Entry measurementsKeyPin;
    private Interleaved afterNextPinRead;
    private long writesLeft = Long.MAX_VALUE;

    /** What another join service does between two steps of this one's admission. */
    @FunctionalInterface
    public interface Interleaved {
        void run() throws Exception;
    }

    @Override
    public synchronized CreateOutcome createAll(Map<BindingKey, String> bindings, OptionalLong controlPlanesUnchangedSince)
            throws Refusal {
        answer();
        if (bindings.isEmpty()) {
            throw new IllegalArgumentException("a create-all transaction needs at least one key");
        }
        Map<BindingKey, String> present = new LinkedHashMap<>();
        bindings.keySet().forEach(key -> Optional.ofNullable(entries.get(key.key())).ifPresent(e -> present.put(key, e.value())));
        boolean changed = controlPlanesUnchangedSince.isPresent() && controlPlaneKeys().values().stream()
                .anyMatch(e -> e.revision() > controlPlanesUnchangedSince.getAsLong());
        if (!present.isEmpty() || changed) {
            return new NoneCreated(present, changed);
        }
        revision++;
        bindings.forEach((key, value) -> entries.put(key.key(), new Entry(value, revision)));
        return new AllCreated();
    }

    @Override
    public synchronized Optional<String> lookup(BindingKey key) throws Refusal {
        answer();
        return Optional.ofNullable(entries.get(key.key())).map(Entry::value);
    }

    @Override
    public synchronized Admitted controlPlanes() throws Refusal {
        answer();
        return new Admitted(controlPlaneKeys().size(), revision);
    }

    @Override
    public synchronized MeasurementsRead measurements() throws Refusal {
        answer();
        MeasurementsRead read = new MeasurementsRead(Optional.ofNullable(measurementsKeyPin).map(e -> new Revisioned(e.value(), e.revision())),
                Optional.ofNullable(measurementsFloor).map(e -> new Revisioned(e.value(), e.revision())));
        interleave();
        return read;
    }

    @Override
    public synchronized boolean admitMeasurements(MeasurementsRead read, Optional<String> keyPin, OptionalLong floor) throws Refusal {
        answer();
        if (keyPin.isEmpty() && floor.isEmpty()) {
            throw new IllegalArgumentException("a conditional write needs at least one key");
        }
        if (revisionOf(measurementsKeyPin) != read.keyPin().map(Revisioned::modRevision).orElse(0L)
                || revisionOf(measurementsFloor) != read.floor().map(Revisioned::modRevision).orElse(0L)) {
            return false;
        }
        write();
        revision++;
        keyPin.ifPresent(pin -> measurementsKeyPin = new Entry(pin, revision));
        floor.ifPresent(version -> measurementsFloor = new Entry(Long.toString(version), revision));
        return true;
    }

    private static long revisionOf(Entry entry) {
        return entry == null ? 0 : entry.revision();
    }

    @Override
    public synchronized long roundTrips() {
        return roundTrips;
    }

    /** While down, every call is refused as EtcdBindingStore refuses when etcd does not answer. */
    public synchronized void down(boolean down) {
        this.down = down;
    }

    private void answer() throws Refusal {
        roundTrips++;
        if (down) {
            throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the cluster store (etcd) did not answer (UNAVAILABLE); retry later");
        }
    }

    /** Runs {@code other} once, right after the next read of the measurement key pin (with the floor) has been answered. */
    public synchronized void afterNextPinRead(Interleaved other) {
        afterNextPinRead = other;
    }

    /** Answers the next {@code writes} measurement writes, then refuses every one as an unanswering etcd (a service stopping). */
    public synchronized void failMeasurementWritesAfter(long writes) {
        writesLeft = writes;
    }

    /** The measurement key pin's text, for assertions. */
    public synchronized Optional<String> measurementsKeyPinValue() {
        return Optional.ofNullable(measurementsKeyPin).map(Entry::value);
    }

    /** The measurements floor, for assertions; -1 where none was raised. */
    public synchronized long measurementsFloorValue() {
        return measurementsFloor == null ? -1 : Long.parseLong(measurementsFloor.value());
    }

    /** Writes the measurements floor as an earlier writer (another join service, a publish) left it. */
    public synchronized void putMeasurementsFloor(long version) {
        revision++;
        measurementsFloor = new Entry(Long.toString(version), revision);
    }

    private void write() throws Refusal {
        if (writesLeft == 0) {
            throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the cluster store (etcd) did not answer (UNAVAILABLE); retry later");
        }
        writesLeft--;
    }

    private void interleave() throws Refusal {
        Interleaved other = afterNextPinRead;
        afterNextPinRead = null;
        if (other != null) {
            try {
                other.run();
            } catch (Exception e) {
                throw new IllegalStateException("the interleaved admission failed", e);
            }
        }
    }

    /** Every key and its value, as etcd would list them; for assertions. */
    public synchronized Map<String, String> snapshot() {
        Map<String, String> copy = new TreeMap<>();
        entries.forEach((key, e) -> copy.put(key, e.value()));
        return copy;
    }

    /** Forgets every binding, as a new cluster's store would not have them (the benchmark's levels). */
    public synchronized void clear() {
        entries.clear();
    }

    /** Writes one key as an earlier writer (another join service, an older version) left it. */
    public synchronized void put(BindingKey key, String value) {
        revision++;
        entries.put(key.key(), new Entry(value, revision));
    }

    private Map<String, Entry> controlPlaneKeys() {
        String prefix = BindingKey.ROOT + BindingKey.CONTROL_PLANES;
        return entries.subMap(prefix, true, prefix + Character.MAX_VALUE, false);
    }
}
