package dev.sextant.housekeeping.discovery;

import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.PhysicalAddress;
import org.jgroups.View;
import org.jgroups.ViewId;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.PingData;

import java.util.HashMap;
import java.util.Map;

/**
 * MERGE3 whose rounds only coordinators run, plus an answer from members that hear of another view.
 *
 * <p>Over TCP (no IP multicast) every MERGE3 round is a discovery, answered with every member known,
 * then an INFO to each member found; stock MERGE3 runs it on every member, so at rest each member pays
 * O(members) per round and the seeds O(members^2) (even at a quarter of the rate, members' rounds cost
 * several times the rest traffic of coordinators' rounds alone). A subgroup is represented by its
 * coordinator's view, and only a coordinator can start a merge, so coordinators' rounds suffice to
 * find subgroups.
 *
 * <p>They do not suffice to find a member that missed a view: one that never installed a merge view
 * (a joiner left in its first view while the others merged) is a member in everyone
 * else's view, no coordinator's INFO shows it, and it sends none. But it receives the coordinators'
 * INFOs, which carry a view id other than its own; it answers such an INFO with its own, so the
 * coordinator's consistency check sees its stale view and merges it back. At most once per sender
 * and round interval, so two members with different views cannot keep each other answering; at rest
 * (one view everywhere) a member sends nothing.
 */
final class CoordinatorMerge extends MERGE3 {
    /** JGroups keys headers by protocol ID; a subclass needs its own, from the range left to applications. */
    static final short PROTOCOL_ID = 1902;

    static {
        if (ClassConfigurator.getProtocolId(CoordinatorMerge.class) == 0) {
            ClassConfigurator.addProtocol(PROTOCOL_ID, CoordinatorMerge.class);
        }
    }

    /** When this member last answered each sender (millis); cleared with every view. */
    private final Map<Address, Long> answered = new HashMap<>();

    @Override
    public Object down(Event evt) {
        Object result = super.down(evt);
        if (evt.getType() == Event.VIEW_CHANGE) {
            synchronized (answered) {
                answered.clear();
            }
            if (isCoord()) {
                startInfoSender();
            } else {
                stopInfoSender();
            }
        }
        return result;
    }

    @Override
    protected void addInfo(Address sender, ViewId viewId, String logicalName, PhysicalAddress physicalAddr) {
        super.addInfo(sender, viewId, logicalName, physicalAddr);
        View current = view;
        if (isCoord() || current == null || sender.equals(local_addr) || current.getViewId().equals(viewId)) {
            return;
        }
        long now = System.currentTimeMillis();
        synchronized (answered) {
            Long last = answered.get(sender);
            if (last != null && now - last < min_interval) {
                return;
            }
            answered.put(sender, now);
        }
        // MERGE3's own INFO path, to the physical address the INFO carried.
        sendInfoMessage(new PingData(sender, true, logicalName, physicalAddr));
    }
}
