package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where bindings live, with what else the join service must not forget (the measurements floor and the
 * pinned measurement signing key):
 * write-once keys (docs/cluster-store.md), written several at a time in one transaction. The join service never deletes one: a bind is not a key release, and removing one after
 * a later failure could let another machine take a UUID whose owner is retrying concurrently.
 *
 * <p>An interface because two implementations exist: {@link EtcdBindingStore}, the cluster store every
 * join service shares, and an in-memory test double with the same transaction semantics (unit tests, and
 * the benchmark's baseline). Every failure to reach the store is a {@link Refusal} with gRPC UNAVAILABLE
 * whose message names the cluster store and carries no key and no value.
 */
public interface BindingStore {
    /** What a create-all transaction did: wrote every key, or none. */
    sealed interface CreateOutcome permits AllCreated, NoneCreated {
    }

    /** Every key was absent (and the guard held): all are written now. */
    record AllCreated() implements CreateOutcome {
    }

    /**
     * Nothing was written. {@code present} holds every requested key that exists, with its value, read
     * in the same transaction; {@code controlPlanesChanged}: a control plane was admitted after the
     * guard's revision (the guard refused; the keys alone may have refused too).
     */
    record NoneCreated(Map<BindingKey, String> present, boolean controlPlanesChanged) implements CreateOutcome {
        public NoneCreated {
            present = Map.copyOf(present);
        }
    }

    /** How many control planes are admitted (keys under {@link BindingKey#CONTROL_PLANES}), counted at {@code revision}. */
    record Admitted(long count, long revision) {
    }

    /**
     * One transaction, one round trip: writes every binding if every key is absent and, with
     * {@code controlPlanesUnchangedSince}, no control plane was admitted after that revision; otherwise
     * writes nothing and returns the current values of the keys that exist.
     */
    CreateOutcome createAll(Map<BindingKey, String> bindings, OptionalLong controlPlanesUnchangedSince) throws Refusal;

    /** The value bound to {@code key}, if any. One round trip. */
    Optional<String> lookup(BindingKey key) throws Refusal;

    /** The control planes admitted so far and the revision they were counted at. One round trip. */
    Admitted controlPlanes() throws Refusal;

    /** A value and the revision it was last modified at: what a compare-and-put compares. */
    record Revisioned(String value, long modRevision) {
    }

    /**
     * The measurement key pin ({@code measurements/key}) and the measurements floor ({@code measurements/floor})
     * as read, each with the revision it was last modified at; absent where the key is.
     */
    record MeasurementsRead(Optional<Revisioned> keyPin, Optional<Revisioned> floor) {
    }

    /**
     * The key pin and the floor, each with its revision, read at one revision (one round trip): a set admitted
     * without a write (the floor at its version already, the pin staying) is judged on the two as they stood
     * together, never on a pin read before another service's rotation and a floor read after it.
     */
    MeasurementsRead measurements() throws Refusal;

    /**
     * One transaction, one round trip: writes the key pin (when {@code keyPin} is present) and the floor (when
     * {@code floor} is present) if both keys are still as {@code read} found them (the revision read; absent:
     * still absent), whichever of them is written; otherwise writes nothing. So a set's admission is all or
     * nothing, and decided on the pin and the floor as they are when it is written. False when another join
     * service wrote either since: read again and decide again.
     */
    boolean admitMeasurements(MeasurementsRead read, Optional<String> keyPin, OptionalLong floor) throws Refusal;

    /** Round trips to the store so far (every attempt at every member), for tests and benchmarks. */
    long roundTrips();
}
