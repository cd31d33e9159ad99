package dev.sextant.housekeeping.componentconfig;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The kubelet's configuration file (KubeletConfiguration, kubelet.config.k8s.io/v1beta1) as typed
 * settings; k3s hands it to its embedded kubelet with {@code kubelet-arg: config=FILE}. What is not
 * a setting here is fixed on purpose: no anonymous access, no read-only port, webhook authorisation.
 *
 * @param clusterDomain          the cluster's DNS domain
 * @param maxPods                pods per node
 * @param tlsMinVersion          e.g. VersionTLS13
 * @param protectKernelDefaults  fail instead of changing kernel tunables the kubelet disagrees with
 * @param serializeImagePulls    one image pull at a time
 * @param shutdownGracePeriod    e.g. "30s"; empty to leave graceful node shutdown off
 * @param evictionHard           signal to threshold, e.g. memory.available to 100Mi
 */
public record KubeletConfig(String clusterDomain, int maxPods, String tlsMinVersion, boolean protectKernelDefaults,
                            boolean serializeImagePulls, String shutdownGracePeriod, Map<String, String> evictionHard) {
    private static final List<String> TLS_VERSIONS = List.of("VersionTLS12", "VersionTLS13");

    public KubeletConfig {
        if (maxPods < 1 || maxPods > 2500) {
            throw new IllegalArgumentException("kubelet max-pods " + maxPods + " is outside 1..2500");
        }
        if (!TLS_VERSIONS.contains(tlsMinVersion)) {
            throw new IllegalArgumentException("kubelet tls-min-version '" + tlsMinVersion + "' is not one of " + TLS_VERSIONS);
        }
        evictionHard = new TreeMap<>(evictionHard);
    }

    public String render() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("apiVersion", "kubelet.config.k8s.io/v1beta1");
        root.put("kind", "KubeletConfiguration");
        root.put("authentication", Map.of("anonymous", Map.of("enabled", false)));
        root.put("authorization", Map.of("mode", "Webhook"));
        root.put("clusterDomain", clusterDomain);
        root.put("evictionHard", evictionHard);
        root.put("maxPods", maxPods);
        root.put("protectKernelDefaults", protectKernelDefaults);
        root.put("readOnlyPort", 0);
        root.put("rotateCertificates", true);
        root.put("serializeImagePulls", serializeImagePulls);
        root.put("shutdownGracePeriod", shutdownGracePeriod);
        root.put("tlsMinVersion", tlsMinVersion);
        return SimpleYaml.render(root);
    }
}
