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
    private long measurementsFloor = -1;
    private Entry measurementsKeyPin;

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
    public synchronized long raiseMeasurementsFloor(long version) throws Refusal {
        answer();
        measurementsFloor = Math.max(measurementsFloor, version);
        return measurementsFloor;
    }

    @Override
    public synchronized Optional<Revisioned> measurementsKeyPin() throws Refusal {
        answer();
        return Optional.ofNullable(measurementsKeyPin).map(e -> new Revisioned(e.value(), e.revision()));
    }

    @Override
    public synchronized boolean putMeasurementsKeyPin(String value, long modRevision) throws Refusal {
        answer();
        long current = measurementsKeyPin == null ? 0 : measurementsKeyPin.revision();
        if (current != modRevision) {
            return false;
        }
        revision++;
        measurementsKeyPin = new Entry(value, revision);
        return true;
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
