package dev.sextant.nodeboot.kubernetes;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class K3sConfigTest {
    @Test
    @DisplayName("k3s' config.yaml pointing the kubelet at its file and Kubernetes' state at the cluster's etcd renders byte for byte as its golden file")
    void k3sGolden() throws IOException {
        Path pki = Path.of("/var/lib/rancher/sextant/services/etcd/pki/k3s");
        K3sConfig k3s = new K3sConfig("cp-1", List.of("api.internal.demo", "on"), "10.43.0.0/16", "10.42.0.0/16",
                "/etc/rancher/k3s/k3s.yaml", List.of(), Optional.of(new ExternalEtcd("https://127.0.0.1:2379",
                pki.resolve("ca.crt"), pki.resolve("k3s.crt"), pki.resolve("k3s.key"))))
                .withKubeletConfig(Path.of("/etc/rancher/k3s/kubelet.yaml"));
        try (InputStream in = K3sConfigTest.class.getResourceAsStream("/kubernetes/k3s-config.yaml")) {
            assertEquals(new String(in.readAllBytes(), StandardCharsets.UTF_8), k3s.render());
        }
    }
}
