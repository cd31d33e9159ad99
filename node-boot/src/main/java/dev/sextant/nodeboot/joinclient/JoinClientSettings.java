package dev.sextant.nodeboot.joinclient;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * This node's settings as a join CLIENT, under the node's own prefix ({@code sextant.node.join.*},
 * beside {@code sextant.node.join-service.*}, how the node verifies the join service); the join
 * SERVICE's settings are {@code sextant.join.*} (JoinServiceConfig). Where join services are, for the join path (which runs only when endpoints or an endpoints file
 * are configured) and for rejoin at boot.
 *
 * @param endpoints           static HOST:PORT list of join services
 * @param endpointsFile       metadata file with HOST:PORT lines (read before every round)
 * @param controlPlane        this node is a control plane (joins as one; serves recovery at boot)
 * @param rpcTimeout          per-call deadline
 */
@ConfigurationProperties(JoinClientSettings.PREFIX)
public record JoinClientSettings(
        @Bindable(defaultValue = "") List<String> endpoints,
        @Nullable Path endpointsFile,
        @Bindable(defaultValue = "false") boolean controlPlane,
        @Bindable(defaultValue = "30s") java.time.Duration rpcTimeout) {
    public static final String PREFIX = "sextant.node.join";

    /**
     * The join path runs when endpoints are listed or the endpoints file exists at start. A node
     * given neither (the first control-plane node) waits for init only.
     */
    public boolean enabled() {
        return hasEndpointsFile() || (endpoints != null && endpoints.stream().anyMatch(e -> !e.isBlank()));
    }

    /** The endpoints file wins over the static list when it exists. */
    public boolean hasEndpointsFile() {
        return endpointsFile != null && Files.exists(endpointsFile);
    }
}
