package dev.sextant.nodeboot.kubernetes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * k3s' config.yaml as typed settings. Rendered by hand (scalars and string lists only) so the
 * output is byte-stable and every value is quoted: a SAN like "on" or "1e3" stays a string.
 */
public record K3sConfig(String nodeName, List<String> tlsSans, String serviceCidr, String clusterCidr,
                        String writeKubeconfig) {
    public K3sConfig {
        tlsSans = List.copyOf(tlsSans);
    }

    static K3sConfig forCluster(ClusterSettings s, String kubeconfigPath) {
        return new K3sConfig(s.nodeName(), s.apiServerSans(), s.serviceCidr(), s.podCidr(), kubeconfigPath);
    }

    static K3sConfig forJoin(JoinSettings s, String kubeconfigPath) {
        return new K3sConfig(s.nodeName(), List.of(), "", "", s.controlPlane() ? kubeconfigPath : "");
    }

    /** YAML with keys in a fixed order; empty settings are left out so k3s uses its defaults. */
    public String render() {
        Map<String, Object> entries = new TreeMap<>();
        put(entries, "node-name", nodeName);
        put(entries, "service-cidr", serviceCidr);
        put(entries, "cluster-cidr", clusterCidr);
        put(entries, "write-kubeconfig", writeKubeconfig);
        if (!writeKubeconfig.isEmpty()) {
            entries.put("write-kubeconfig-mode", "0600");
        }
        if (!tlsSans.isEmpty()) {
            entries.put("tls-san", tlsSans);
        }
        List<String> lines = new ArrayList<>();
        lines.add("# Written by the sextant node bootstrapper; do not edit.");
        entries.forEach((key, value) -> {
            if (value instanceof List<?> list) {
                lines.add(key + ":");
                list.forEach(item -> lines.add("  - " + quote(item.toString())));
            } else {
                lines.add(key + ": " + quote(value.toString()));
            }
        });
        return String.join("\n", lines) + "\n";
    }

    private static void put(Map<String, Object> entries, String key, String value) {
        if (value != null && !value.isEmpty()) {
            entries.put(key, value);
        }
    }

    // Values are validated hostnames, IPs and CIDRs; escaping keeps a bad one from breaking the file anyway.
    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
