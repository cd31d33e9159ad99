package dev.sextant.joinapi.measurements;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits the set in force against what the cluster store remembers, where no restart loses it: the key
 * the cluster pinned ({@link MeasurementsKeyPin}) and the highest measurement-set version any join service
 * of the cluster has accepted (the floor). A join service whose set is signed by another key (a swapped key
 * and set), or is older than the floor (a validly signed old set mounted again, after a restart that forgot
 * the newer one), issues no ticket. Each set in force is checked once, at its first ticket (later tickets
 * cost no round trip), and raises the floor when newer.
 *
 * <p>The order is the point: the key first, so a set signed by an unpinned key raises no floor (its high
 * version would otherwise lock the operator's sets out); then the floor; then, for a set that names a next
 * key, the pin moves, so a rotation carried by a set below the floor moves nothing. The three are separate
 * compare-and-puts (the store's client has no multi-key compare), and each step is safe to repeat: a service
 * that stops between them finishes the rotation at its next ticket.
 */
@Singleton
public class MeasurementsFloor {
    private static final Logger LOG = LoggerFactory.getLogger(MeasurementsFloor.class);

    private final BindingStore store;
    private final ReloadingVerifier measurements;
    private final MeasurementsKeyPin keyPin;
    private volatile SetInForce admitted;

    public MeasurementsFloor(BindingStore store, ReloadingVerifier measurements, MeasurementsKeyPin keyPin) {
        this.store = store;
        this.measurements = measurements;
        this.keyPin = keyPin;
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
            for (int attempt = 0; attempt < MeasurementsKeyPin.ATTEMPTS; attempt++) {
                MeasurementsKeyPin.Admitted pin;
                try {
                    pin = keyPin.check(set);
                } catch (Refusal notPinned) {
                    if (notPinned.reason() != JoinRefusal.MEASUREMENTS_KEY_NOT_PINNED || set.handedOverBy().isEmpty()) {
                        throw notPinned;
                    }
                    // The rotation this set relies on came and went here before any ticket admitted it: admit it
                    // now, as it would have been, then this set. A rotation the pinned key did not sign fails here.
                    SetInForce rotation = set.handedOverBy().get();
                    MeasurementsKeyPin.Admitted rotating;
                    try {
                        rotating = keyPin.check(rotation);
                    } catch (Refusal alsoNotPinned) {
                        throw notPinned;
                    }
                    try {
                        raiseFloor(rotation);
                    } catch (Refusal belowFloor) {
                        throw notPinned; // a rotation older than the floor moves nothing
                    }
                    keyPin.rotate(rotation, rotating);
                    continue;
                }
                long version = set.version();
                raiseFloor(set);
                if (keyPin.rotate(set, pin)) {
                    LOG.info("measurements version {} (signed by {}) admitted against the cluster's floor and pinned key",
                            version, set.signer());
                    admitted = set;
                    return;
                }
            }
            throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the measurement key pin kept changing in the cluster store; retry later");
        }
    }

    private void raiseFloor(SetInForce set) throws Refusal {
        long version = set.version();
        long floor = store.raiseMeasurementsFloor(version);
        if (floor > version) {
            throw new Refusal(JoinRefusal.MEASUREMENTS_BELOW_FLOOR, "this join service's measurement set is version "
                    + version + ", lower than version " + floor + " the cluster has accepted before (an older signed"
                    + " set in force again?); no ticket until a set of version " + floor + " or higher is in force");
        }
    }
}
