package dev.sextant.joinapi.measurements;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The highest measurement-set version any join service of the cluster has accepted, kept in the cluster
 * store where no restart loses it: a join service whose set in force is older (a validly signed old set
 * mounted again, after a restart that forgot the newer one) issues no ticket. Each set in force is
 * checked once, at its first ticket (later tickets cost no round trip), and raises the floor when newer.
 */
@Singleton
public class MeasurementsFloor {
    private static final Logger LOG = LoggerFactory.getLogger(MeasurementsFloor.class);

    private final BindingStore store;
    private final ReloadingVerifier measurements;
    private volatile long admitted = -1;

    public MeasurementsFloor(BindingStore store, ReloadingVerifier measurements) {
        this.store = store;
        this.measurements = measurements;
    }

    /** Passes when the set in force is not below the floor, raising the floor to it. */
    public void admitSetInForce() throws Refusal {
        long version = measurements.version();
        if (version == admitted) {
            return;
        }
        synchronized (this) {
            if (version == admitted) {
                return;
            }
            long floor = store.raiseMeasurementsFloor(version);
            if (floor > version) {
                throw new Refusal(JoinRefusal.MEASUREMENTS_BELOW_FLOOR, "this join service's measurement set is version "
                        + version + ", lower than version " + floor + " the cluster has accepted before (an older signed"
                        + " set in force again?); no ticket until a set of version " + floor + " or higher is in force");
            }
            LOG.info("measurements version {} admitted against the cluster's floor", version);
            admitted = version;
        }
    }
}
