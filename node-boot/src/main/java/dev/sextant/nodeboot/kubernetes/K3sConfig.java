package dev.sextant.nodeboot.kubernetes;

import dev.sextant.housekeeping.componentconfig.ConfigFile;
import dev.sextant.housekeeping.componentconfig.SimpleYaml;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * k3s' config.yaml as typed settings, rendered by {@link SimpleYaml} so the output is byte-stable
 * and every string is quoted: a SAN like "on" or "1e3" stays a string.
 *
 * @param kubeletArgs  passed to the embedded kubelet, e.g. {@code config=/etc/rancher/k3s/kubelet.yaml}
 * @param datastore    the etcd k3s keeps Kubernetes' state in ({@code datastore-*}); empty: k3s' own
 */
public record K3sConfig(String nodeName, List<String> tlsSans, String serviceCidr, String clusterCidr,
                        String writeKubeconfig, List<String> kubeletArgs, Optional<ExternalEtcd> datastore) {
    public K3sConfig {
        tlsSans = List.copyOf(tlsSans);
        kubeletArgs = List.copyOf(kubeletArgs);
        Objects.requireNonNull(datastore, "datastore");
    }

    static K3sConfig forCluster(ClusterSettings s, String kubeconfigPath) {
        return new K3sConfig(s.nodeName(), s.apiServerSans(), s.serviceCidr(), s.podCidr(), kubeconfigPath, List.of(),
                s.datastore());
    }

    static K3sConfig forJoin(JoinSettings s, String kubeconfigPath) {
        return new K3sConfig(s.nodeName(), List.of(), "", "", s.controlPlane() ? kubeconfigPath : "", List.of(),
                Optional.empty());
    }

    /** The same settings with the kubelet reading its configuration from {@code file}. */
    public K3sConfig withKubeletConfig(Path file) {
        List<String> args = new ArrayList<>(kubeletArgs);
        args.add("config=" + file);
        return new K3sConfig(nodeName, tlsSans, serviceCidr, clusterCidr, writeKubeconfig, args, datastore);
    }

    /** YAML with keys in a fixed (sorted) order; empty settings are left out so k3s uses its defaults. */
    public String render() {
        Map<String, Object> entries = new TreeMap<>();
        entries.put("node-name", nodeName);
        entries.put("service-cidr", serviceCidr);
        entries.put("cluster-cidr", clusterCidr);
        entries.put("write-kubeconfig", writeKubeconfig);
        if (writeKubeconfig != null && !writeKubeconfig.isEmpty()) {
            entries.put("write-kubeconfig-mode", "0600");
        }
        entries.put("tls-san", tlsSans);
        entries.put("kubelet-arg", kubeletArgs);
        // File paths only, never the key itself; in config.yaml rather than on the command line all the same.
        datastore.ifPresent(etcd -> {
            entries.put("datastore-endpoint", etcd.endpoint());
            entries.put("datastore-cafile", etcd.caFile().toString());
            entries.put("datastore-certfile", etcd.certFile().toString());
            entries.put("datastore-keyfile", etcd.keyFile().toString());
        });
        return SimpleYaml.render(entries);
    }

    /** The file k3s reads; 0600 because it names the admin kubeconfig and may later carry tokens. */
    public ConfigFile file(Path path) {
        return ConfigFile.of(path, render(), true);
    }
}
