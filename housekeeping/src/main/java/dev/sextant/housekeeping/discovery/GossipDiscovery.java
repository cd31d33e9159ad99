package dev.sextant.housekeeping.discovery;

import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * Join services as the discovery group knows them (records named {@code join.internal.CLUSTER}),
 * the third {@link ControlPlaneDiscovery} beside the static list and the metadata file. It serves
 * nodes that already hold the group key (a control plane looking for its peers, a node asking
 * again after a restart); a fresh node has no key yet and starts from one of the other two.
 */
public record GossipDiscovery(Supplier<Collection<EndpointRecord>> records, String name) implements ControlPlaneDiscovery {
    @Override
    public List<Endpoint> endpoints() {
        return records.get().stream().filter(r -> r.name().equals(name) && r.port() > 0).sorted()
                .map(r -> new Endpoint(r.address(), r.port())).toList();
    }
}
