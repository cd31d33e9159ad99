package dev.sextant.housekeeping.discovery;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Endpoint discovery among attested nodes.
 *
 * @param enabled         off: nodes rely on the static list or metadata file alone
 * @param cluster         cluster name; records live under {@code internal.<cluster>}
 * @param bindAddress     address to listen on and publish; empty for the first non-loopback IPv4
 * @param port            group TCP port, the only one discovery listens on
 * @param seeds           control-plane addresses (HOST or HOST:PORT) to find the group through
 * @param hostsFile       hosts file whose managed block lists resolved names; empty to write none
 * @param failureTimeout  how long a silent member (and its records) stays in the group
 * @param reannounce      period of the idempotent re-announce of this node's own records
 * @param apiPort         API server port published as api.internal.CLUSTER (control planes)
 * @param joinPort        join service port published as join.internal.CLUSTER; 0 when none runs here
 * @param datastorePort   etcd client port published as etcd-NODE.internal.CLUSTER
 */
@ConfigurationProperties("sextant.discovery.gossip")
public record GossipSettings(
        @Bindable(defaultValue = "false") boolean enabled,
        @Bindable(defaultValue = "sextant") String cluster,
        @Bindable(defaultValue = "") String bindAddress,
        @Bindable(defaultValue = "7800") int port,
        @Bindable(defaultValue = "") List<String> seeds,
        @Bindable(defaultValue = "/etc/hosts") String hostsFile,
        @Bindable(defaultValue = "12s") Duration failureTimeout,
        @Bindable(defaultValue = "30s") Duration reannounce,
        @Bindable(defaultValue = "6443") int apiPort,
        @Bindable(defaultValue = "0") int joinPort,
        @Bindable(defaultValue = "2379") int datastorePort) {

    public GossipSettings {
        seeds = seeds == null ? List.of() : seeds.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    public String domain() {
        return "internal." + cluster;
    }

    Path hostsPath() {
        return hostsFile == null || hostsFile.isBlank() ? null : Path.of(hostsFile);
    }
}
