package dev.sextant.nodeboot.endpointdiscovery;

import org.jgroups.Event;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.MERGE3;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * MERGE3 whose rounds at rest are mostly the coordinators'. Over TCP (no IP multicast) every MERGE3
 * round is a discovery to the seeds, answered with every member they know, then an INFO to each
 * member found; stock MERGE3 runs it on every member at one rate, so at rest each member paid
 * O(members) per round and each seed O(members^2). Here a coordinator keeps the configured rate
 * (its INFO stands for its whole subgroup); any other member keeps that rate for
 * {@value #FAST_ROUNDS_AFTER_VIEW} rounds after each view it installs and then sends
 * {@value #MEMBER_SLOWDOWN} times less often, but never stops: a member that missed a view change
 * (a joiner left in its first view while the rest of the group merged, seen in CI under load) is
 * found only by an INFO that carries its stale view id, because no coordinator's view shows it.
 */
final class CoordinatorMerge extends MERGE3 {
    /** JGroups keys headers by protocol ID; a subclass needs its own, from the range left to applications. */
    static final short PROTOCOL_ID = 1902;
    /** Views are missed around joins and merges, so right after a view a member reports at the full rate. */
    static final int FAST_ROUNDS_AFTER_VIEW = 3;
    static final int MEMBER_SLOWDOWN = 4;

    static {
        if (ClassConfigurator.getProtocolId(CoordinatorMerge.class) == 0) {
            ClassConfigurator.addProtocol(PROTOCOL_ID, CoordinatorMerge.class);
        }
    }

    private long fullRateMin;
    private long fullRateMax;
    private Future<?> slowDown;

    @Override
    public void init() throws Exception {
        super.init();
        fullRateMin = min_interval;
        fullRateMax = max_interval;
    }

    /** MERGE3 restarts every member's INFO rounds on a view change; this sets how often they come. */
    @Override
    public Object down(Event evt) {
        Object result = super.down(evt);
        if (evt.getType() == Event.VIEW_CHANGE) {
            pace();
        }
        return result;
    }

    private synchronized void pace() {
        if (slowDown != null) {
            slowDown.cancel(false);
            slowDown = null;
        }
        setRate(1);
        if (!isCoord()) {
            slowDown = timer.schedule(() -> setRate(MEMBER_SLOWDOWN), FAST_ROUNDS_AFTER_VIEW * fullRateMax,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** The INFO sender reads both bounds for each next round. */
    private synchronized void setRate(int slowdown) {
        min_interval = fullRateMin * slowdown;
        max_interval = fullRateMax * slowdown;
    }
}
