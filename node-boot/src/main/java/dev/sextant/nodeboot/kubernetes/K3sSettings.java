package dev.sextant.nodeboot.kubernetes;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where k3s lives on the node.
 *
 * @param binary        the k3s executable
 * @param configFile    the config k3s reads (k3s' own default path)
 * @param kubeconfig    where k3s writes the admin kubeconfig
 * @param startTimeout  how long init waits for the kubeconfig to appear
 * @param joinSettle    how long a join must keep running (or exit 0) to count as started
 */
@ConfigurationProperties("sextant.k3s")
public record K3sSettings(
        @Bindable(defaultValue = "/usr/local/bin/k3s") Path binary,
        @Bindable(defaultValue = "/etc/rancher/k3s/config.yaml") Path configFile,
        @Bindable(defaultValue = "/etc/rancher/k3s/k3s.yaml") Path kubeconfig,
        @Bindable(defaultValue = "120s") Duration startTimeout,
        @Bindable(defaultValue = "5s") Duration joinSettle) {
}
