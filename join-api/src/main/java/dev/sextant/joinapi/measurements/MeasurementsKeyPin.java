package dev.sextant.joinapi.measurements;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.binding.BindingStore.Revisioned;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The measurement signing key pinned in the cluster store ({@code measurements/key}): whoever can write the
 * join service's ConfigMaps (or its files) can swap a set and the key that verifies it together, but not the
 * pin. The first join service to admit a set pins its signer (a compare-and-put that only an absent pin
 * passes; at init, {@link SetAdmissionAtStart}); from then on a set signed by another key issues no ticket, whatever its version. A set signed by
 * the pinned key that names a next key moves the pin to it ({@link #rotate}); only that key's sets pass
 * afterwards (and the rotating set itself, by its digest, while it is still in force somewhere).
 */
@Singleton
public class MeasurementsKeyPin {
    private static final Logger LOG = LoggerFactory.getLogger(MeasurementsKeyPin.class);
    /** Only another join service pinning at the same moment makes a compare-and-put lose. */
    static final int ATTEMPTS = 5;

    private final BindingStore store;

    public MeasurementsKeyPin(BindingStore store) {
        this.store = store;
    }

    /** The pin that admitted a set, with the revision a rotation compares. */
    record Admitted(KeyPin pin, long modRevision) {
    }

    /**
     * Passes when the pinned key admits the set (pinning its signer where none is pinned yet).
     *
     * @throws Refusal MEASUREMENTS_KEY_NOT_PINNED naming both fingerprints; UNAVAILABLE when etcd does not answer
     */
    Admitted check(SetInForce set) throws Refusal {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Optional<Revisioned> stored = store.measurementsKeyPin();
            if (stored.isEmpty()) {
                if (store.putMeasurementsKeyPin(KeyPin.first(set.signer()).text(), 0)) {
                    LOG.info("measurement signing key {} pinned in the cluster store: sets signed by any other key are refused",
                            set.signer());
                }
                continue; // read again: the revision a rotation compares, or the pin another service wrote first
            }
            KeyPin pin = parse(stored.get().value());
            if (!pin.admits(set)) {
                throw new Refusal(JoinRefusal.MEASUREMENTS_KEY_NOT_PINNED, "this join service's measurement set (version "
                        + set.version() + ") is signed by key " + set.signer() + ", but the cluster pinned key " + pin.key()
                        + " (a swapped key and set, or a rotation the pinned key never signed?); no ticket until a set signed by "
                        + pin.key() + " is in force");
            }
            return new Admitted(pin, stored.get().modRevision());
        }
        throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the measurement key pin kept changing in the cluster store; retry later");
    }

    /**
     * Moves the pin to the next key the set names, if it names one and was admitted as signed by the pinned
     * key; a compare-and-put at the revision {@link #check} read.
     *
     * @return false when the pin changed since it was read (check again); true when done or nothing to do
     */
    boolean rotate(SetInForce set, Admitted admitted) throws Refusal {
        if (!set.rotates() || !admitted.pin().key().equals(set.signer())) {
            return true;
        }
        if (!store.putMeasurementsKeyPin(KeyPin.rotatedBy(set).text(), admitted.modRevision())) {
            return false;
        }
        LOG.warn("measurement signing key rotated from {} to {} by the set of version {} ({}): sets signed by {} are refused from now on",
                set.signer(), set.nextKey().orElseThrow(), set.version(), set.digest(), set.signer());
        return true;
    }

    private static KeyPin parse(String value) throws Refusal {
        try {
            return KeyPin.parse(value);
        } catch (IllegalArgumentException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "the measurement key pin in the cluster store is not one this join service reads", e);
        }
    }
}
