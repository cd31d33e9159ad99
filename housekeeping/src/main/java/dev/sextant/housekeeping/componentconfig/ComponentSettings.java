package dev.sextant.housekeeping.componentconfig;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;
import java.util.Map;

/**
 * Component configuration from application.yml: where the kubelet's file goes and what it says.
 *
 * @param kubeletConfigFile  the KubeletConfiguration file k3s points its kubelet at
 */
@ConfigurationProperties("sextant.components")
public record ComponentSettings(
        @Bindable(defaultValue = "/etc/rancher/k3s/kubelet.yaml") Path kubeletConfigFile,
        @Bindable(defaultValue = "cluster.local") String clusterDomain,
        @Bindable(defaultValue = "110") int maxPods,
        @Bindable(defaultValue = "VersionTLS13") String tlsMinVersion,
        @Bindable(defaultValue = "30s") String shutdownGracePeriod) {

    /**
     * protectKernelDefaults stays off until the node image sets the sysctls the kubelet checks
     * (vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1); with it on, a stock Debian
     * kernel configuration stops the kubelet.
     */
    public KubeletConfig kubelet() {
        return new KubeletConfig(clusterDomain, maxPods, tlsMinVersion, false, false, shutdownGracePeriod,
                Map.of("memory.available", "100Mi", "nodefs.available", "10%", "imagefs.available", "15%"));
    }
}
