package dev.sextant.housekeeping.discovery;

import java.io.IOException;
import java.util.List;

/**
 * Where a joining node finds join services. Asked again before every round, so a list that grows
 * (more control planes, a metadata file rewritten) is picked up without a restart.
 */
@FunctionalInterface
public interface ControlPlaneDiscovery {
    List<Endpoint> endpoints() throws IOException;
}
