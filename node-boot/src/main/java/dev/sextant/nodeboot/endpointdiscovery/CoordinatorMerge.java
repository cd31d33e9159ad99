package dev.sextant.nodeboot.endpointdiscovery;

import org.jgroups.Event;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.MERGE3;

/**
 * MERGE3 whose rounds only coordinators run. Over TCP (no IP multicast) every MERGE3 round is a
 * discovery to the seeds, answered with every member they know, then an INFO to each member found;
 * stock MERGE3 runs it on every member, so at rest each member paid O(members) per round and each
 * seed O(members^2). A subgroup is represented by its coordinator's view, and only coordinators act
 * on INFO, so the other members' rounds added nothing to finding subgroups.
 */
final class CoordinatorMerge extends MERGE3 {
    /** JGroups keys headers by protocol ID; a subclass needs its own, from the range left to applications. */
    static final short PROTOCOL_ID = 1902;

    static {
        if (ClassConfigurator.getProtocolId(CoordinatorMerge.class) == 0) {
            ClassConfigurator.addProtocol(PROTOCOL_ID, CoordinatorMerge.class);
        }
    }

    @Override
    public Object down(Event evt) {
        Object result = super.down(evt);
        if (evt.getType() == Event.VIEW_CHANGE) {
            if (isCoord()) {
                startInfoSender();
            } else {
                stopInfoSender();
            }
        }
        return result;
    }
}
