package dev.sextant.nodeboot.joinservices;

import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.housekeeping.discovery.Endpoint;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Several sources asked in order, each endpoint once: the configured list or metadata file first,
 * then what endpoint discovery knows. A source that fails is skipped for this round (its error
 * is reported when no source gave anything).
 */
public record CombinedDiscovery(List<ControlPlaneDiscovery> sources) implements ControlPlaneDiscovery {
    public CombinedDiscovery {
        sources = List.copyOf(sources);
    }

    @Override
    public List<Endpoint> endpoints() throws IOException {
        Set<Endpoint> all = new LinkedHashSet<>();
        IOException failed = null;
        for (ControlPlaneDiscovery source : sources) {
            try {
                all.addAll(source.endpoints());
            } catch (IOException e) {
                failed = e;
            }
        }
        if (all.isEmpty() && failed != null) {
            throw failed;
        }
        return new ArrayList<>(all);
    }
}
