package dev.sextant.joinapi.measurements;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.binding.BindingStore.MeasurementsRead;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits the set in force against what the cluster store remembers, where no restart loses it: the key
 * the cluster pinned ({@code measurements/key}, {@link KeyPin}) and the highest measurement-set version any
 * join service of the cluster has accepted (the floor). A join service whose set is signed by another key (a
 * swapped key and set), or is older than the floor (a validly signed old set mounted again, after a restart
 * that forgot the newer one), issues no ticket. Each set in force is checked once, at its first ticket (later
 * tickets cost no round trip), and raises the floor when newer.
 *
 * <p>Whoever can write the join service's ConfigMaps (or its files) can swap a set and the key that verifies
 * it together, but not the pin: the first set admitted pins its signer (at init, {@link SetAdmissionAtStart});
 * a set signed by the pinned key that names a next key moves the pin to it, and only that key's sets pass
 * afterwards (and the rotating set itself, by its digest, while it is still in force somewhere).
 *
 * <p>The pin (created where absent), the floor raised and the pin's move for a rotating set are one
 * transaction, compared at the revisions read ({@link BindingStore#admitMeasurements}): an unpinned key's set
 * raises no floor (its high version would otherwise lock the operator's sets out), a rotation carried by a set
 * below the floor moves nothing, and a set admitted against a pin that another join service moved meanwhile
 * is decided again on the moved pin, never written beside it. Nothing is ever half done: the floor is never
 * raised by a set whose rotation was not written with it.
 */
@Singleton
public class MeasurementsFloor {
    private static final Logger LOG = LoggerFactory.getLogger(MeasurementsFloor.class);
    /** Only another join service admitting a set at the same moment makes the transaction lose. */
    static final int ATTEMPTS = 5;

    private final BindingStore store;
    private final ReloadingVerifier measurements;
    private volatile SetInForce admitted;

    public MeasurementsFloor(BindingStore store, ReloadingVerifier measurements) {
        this.store = store;
        this.measurements = measurements;
    }

    /** Passes when the set in force is signed by the pinned key and not below the floor, raising the floor to it. */
    public void admitSetInForce() throws Refusal {
        SetInForce set = measurements.setInForce();
        if (set.equals(admitted)) {
            return;
        }
        synchronized (this) {
            if (set.equals(admitted)) {
                return;
            }
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                MeasurementsRead read = store.measurements();
                Optional<KeyPin> stored = read.keyPin().isPresent() ? Optional.of(parse(read.keyPin().get().value())) : Optional.empty();
                long floor = read.floor().map(f -> version(f.value())).orElse(-1L);
                KeyPin pin = pinAfter(set, stored, floor);
                if (set.version() < floor) {
                    throw belowFloor(set.version(), floor);
                }
                Optional<KeyPin> newPin = stored.equals(Optional.of(pin)) ? Optional.empty() : Optional.of(pin);
                OptionalLong newFloor = set.version() > floor ? OptionalLong.of(set.version()) : OptionalLong.empty();
                if (newPin.isPresent() || newFloor.isPresent()) {
                    if (!store.admitMeasurements(read, newPin.map(KeyPin::text), newFloor)) {
                        continue; // another join service admitted something since the read: decide again
                    }
                    logWritten(set, stored, pin);
                }
                LOG.info("measurements version {} (signed by {}) admitted against the cluster's floor and pinned key",
                        set.version(), set.signer());
                admitted = set;
                return;
            }
            throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE,
                    "the measurement key pin and floor kept changing in the cluster store; retry later");
        }
    }

    /**
     * The pin once {@code set} is admitted: its signer where none is pinned yet; the rotation it relies on
     * ({@link SetInForce#handedOverBy}) where no join service admitted that yet, as that one's admission
     * would have moved it (not if it is below the floor); moved again to the next key the set names when the set's own signer is pinned.
     *
     * @throws Refusal MEASUREMENTS_KEY_NOT_PINNED naming both fingerprints
     */
    private static KeyPin pinAfter(SetInForce set, Optional<KeyPin> stored, long floor) throws Refusal {
        KeyPin pinned = stored.orElse(KeyPin.first(set.signer()));
        KeyPin pin = pinned;
        if (!pin.admits(set)) {
            // The rotation this set relies on came and went here before any ticket admitted it: admit it now,
            // as it would have been, with this set. A rotation the pinned key did not sign, or older than the
            // floor, moves nothing.
            Optional<SetInForce> rotation = set.handedOverBy();
            if (rotation.isEmpty() || !pin.admits(rotation.get()) || rotation.get().version() < floor) {
                throw notPinned(set, pinned);
            }
            pin = moved(pin, rotation.get());
            if (!pin.admits(set)) {
                throw notPinned(set, pinned);
            }
        }
        return moved(pin, set);
    }

    /** The pin after {@code set}, admitted under it: moved to the next key the set names if it is signed by the pinned key. */
    private static KeyPin moved(KeyPin pin, SetInForce set) {
        return set.rotates() && pin.key().equals(set.signer()) ? KeyPin.rotatedBy(set) : pin;
    }

    private static void logWritten(SetInForce set, Optional<KeyPin> stored, KeyPin pin) {
        if (stored.isEmpty()) {
            LOG.info("measurement signing key {} pinned in the cluster store: sets signed by any other key are refused",
                    set.signer());
        }
        if (pin.rotation().isPresent() && !stored.equals(Optional.of(pin))) {
            KeyPin.Rotation r = pin.rotation().get();
            LOG.warn("measurement signing key rotated from {} to {} by the set of version {} ({}): sets signed by {} are refused from now on",
                    r.from(), pin.key(), r.version(), r.set(), r.from());
        }
    }

    private static Refusal notPinned(SetInForce set, KeyPin pin) {
        return new Refusal(JoinRefusal.MEASUREMENTS_KEY_NOT_PINNED, "this join service's measurement set (version "
                + set.version() + ") is signed by key " + set.signer() + ", but the cluster pinned key " + pin.key()
                + " (a swapped key and set, or a rotation the pinned key never signed?); no ticket until a set signed by "
                + pin.key() + " is in force");
    }

    private static Refusal belowFloor(long version, long floor) {
        return new Refusal(JoinRefusal.MEASUREMENTS_BELOW_FLOOR, "this join service's measurement set is version "
                + version + ", lower than version " + floor + " the cluster has accepted before (an older signed"
                + " set in force again?); no ticket until a set of version " + floor + " or higher is in force");
    }

    private static KeyPin parse(String value) throws Refusal {
        try {
            return KeyPin.parse(value);
        } catch (IllegalArgumentException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "the measurement key pin in the cluster store is not one this join service reads", e);
        }
    }

    private static long version(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("measurements/floor in etcd is not a version number", e);
        }
    }
}
