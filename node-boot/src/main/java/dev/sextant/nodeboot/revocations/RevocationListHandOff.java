package dev.sextant.nodeboot.revocations;

import dev.sextant.housekeeping.discovery.EndpointDiscovery;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import java.time.Duration;

/**
 * Starts the hand-off of the revocation list with the bootstrapper, in every process of it (the one that
 * bootstraps and the one that resumes discovery after it): the join service, which writes the list, runs
 * in another process (a unit of this node, or a pod), so the list reaches this node's discovery through the
 * cluster store. Idle where discovery does not run, or this node has no etcd member (a worker: it learns
 * the list from the control planes' announcements).
 */
@Context
@Requires(property = RevocationListHandOff.ENABLED, notEquals = "false")
public class RevocationListHandOff {
    public static final String ENABLED = "sextant.discovery.revocations.enabled";
    public static final String POLL = "sextant.discovery.revocations.poll";

    private final ControlPlaneRevocationList source;
    private final RevocationListPoller poller;

    public RevocationListHandOff(NodeLocalSettings settings, EndpointDiscovery discovery, @Value("${" + POLL + ":2s}") Duration period) {
        this.source = new ControlPlaneRevocationList(settings);
        this.poller = new RevocationListPoller(source, discovery).start(period);
    }

    public RevocationListPoller poller() {
        return poller;
    }

    @PreDestroy
    public void stop() {
        poller.close();
        source.close();
    }
}
