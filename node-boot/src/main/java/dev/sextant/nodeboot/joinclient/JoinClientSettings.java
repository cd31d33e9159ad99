package dev.sextant.nodeboot.joinclient;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The join path. It runs only when endpoints or an endpoints file are configured.
 *
 * @param endpoints           static HOST:PORT list of join services
 * @param endpointsFile       metadata file with HOST:PORT lines (read before every round)
 * @param controlPlane        join as a control-plane node
 * @param kubeletPkiDir       where the kubelet client certificate and key go
 * @param kubernetesPkiDir    where control-plane files from the ticket go
 * @param serviceMeasurements when set (with serviceEkCa), the join service must attest to these (mutual aTLS)
 * @param serviceEkCa         PEM EK CA bundle for the join service's attestation
 * @param rpcTimeout          per-call deadline
 */
@ConfigurationProperties("sextant.join")
public record JoinClientSettings(
        @Bindable(defaultValue = "") List<String> endpoints,
        @Nullable Path endpointsFile,
        @Bindable(defaultValue = "false") boolean controlPlane,
        @Bindable(defaultValue = "/run/state/kubelet/pki") Path kubeletPkiDir,
        @Bindable(defaultValue = "/etc/rancher/k3s/pki") Path kubernetesPkiDir,
        @Nullable Path serviceMeasurements,
        @Nullable Path serviceEkCa,
        @Bindable(defaultValue = "30s") java.time.Duration rpcTimeout) {

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
