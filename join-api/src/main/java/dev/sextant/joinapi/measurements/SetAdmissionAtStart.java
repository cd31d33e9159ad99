package dev.sextant.joinapi.measurements;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.InitNodeClaim;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.annotation.Context;
import jakarta.inject.Provider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits the set in force at start-up where the service binds an init node (the control planes' join
 * services, right after {@code sextant init}): so the cluster's measurement signing key is pinned at init,
 * from the set init installed, and not at the first join, which a one-node cluster may not see for months
 * while its ConfigMaps stand open to whoever can write them. After the init node's claim, which needs etcd
 * (a service with an init node does not start without it). A refusal here stops nothing: it is logged, and
 * every ticket is refused for the same reason until the set changes.
 */
@Context
public class SetAdmissionAtStart {
    private static final Logger LOG = LoggerFactory.getLogger(SetAdmissionAtStart.class);

    /** The admission through a provider: without an init node nothing here may build the verifier early. */
    public SetAdmissionAtStart(JoinServiceConfig config, InitNodeClaim initNode, Provider<MeasurementsFloor> admission) {
        if (config.initNode().isEmpty()) {
            return; // no init node: no etcd promised at start; the first ticket pins
        }
        try {
            admission.get().admitSetInForce();
        } catch (Refusal r) {
            LOG.error("the measurement set in force was not admitted at start-up ({}): {}",
                    r.reason(), r.getMessage());
        }
    }
}
