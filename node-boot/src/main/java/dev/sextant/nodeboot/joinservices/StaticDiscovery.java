package dev.sextant.nodeboot.joinservices;

import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.housekeeping.discovery.Endpoint;

import java.util.List;

/** A fixed list, e.g. from the kernel command line or configuration. */
public record StaticDiscovery(List<Endpoint> list) implements ControlPlaneDiscovery {
    public StaticDiscovery {
        list = List.copyOf(list);
    }

    @Override
    public List<Endpoint> endpoints() {
        return list;
    }
}
