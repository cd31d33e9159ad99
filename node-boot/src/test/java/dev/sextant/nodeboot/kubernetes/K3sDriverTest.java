package dev.sextant.nodeboot.kubernetes;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class K3sDriverTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("init runs 'k3s server --cluster-init' with the golden config.yaml and returns k3s' kubeconfig")
    void initRunsClusterInit() throws Exception {
        StandInK3s k3s = StandInK3s.create(dir, 0);
        var result = new K3sDriver(k3s.settings()).initCluster(new ClusterSettings("node-a", "demo", "",
                "10.43.0.0/16", "", List.of("api.example.test", "192.0.2.10")));

        Started started = assertStarted(result);
        assertTrue(new String(started.kubeconfig()).contains("kind: Config"));
        assertEquals(List.of("server --cluster-init --config " + k3s.settings().configFile()), k3s.invocations());
        assertEquals(golden("""
                node-name: "node-a"
                service-cidr: "10.43.0.0/16"
                tls-san:
                  - "api.example.test"
                  - "192.0.2.10"
                write-kubeconfig: "KUBECONFIG"
                write-kubeconfig-mode: "0600"
                """), Files.readString(k3s.configCopy()));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(k3s.settings().configFile())));
    }

    @Test
    @DisplayName("init over the cluster's etcd runs 'k3s server' without --cluster-init (k3s' own embedded etcd), config.yaml naming the member and k3s' client certificate")
    void initOverClusterEtcd() throws Exception {
        StandInK3s k3s = StandInK3s.create(dir, 0);
        Path pki = dir.resolve("services/etcd/pki/k3s");
        ExternalEtcd etcd = new ExternalEtcd("https://127.0.0.1:2379", pki.resolve("ca.crt"), pki.resolve("k3s.crt"), pki.resolve("k3s.key"));
        assertStarted(new K3sDriver(k3s.settings()).initCluster(
                new ClusterSettings("node-a", "demo", "", "", "", List.of()).withDatastore(etcd)));

        assertEquals(List.of("server --config " + k3s.settings().configFile()), k3s.invocations());
        assertEquals(golden("""
                datastore-cafile: "PKI/ca.crt"
                datastore-certfile: "PKI/k3s.crt"
                datastore-endpoint: "https://127.0.0.1:2379"
                datastore-keyfile: "PKI/k3s.key"
                node-name: "node-a"
                write-kubeconfig: "KUBECONFIG"
                write-kubeconfig-mode: "0600"
                """.replace("PKI", pki.toString())), Files.readString(k3s.configCopy()));
    }

    @Test
    @DisplayName("a worker joins with 'k3s agent --server URL --token-file F'; a control plane with 'k3s server --server URL --token-file F'")
    void joinRunsAgentOrServer() throws Exception {
        StandInK3s k3s = StandInK3s.create(dir, 0);
        K3sDriver driver = new K3sDriver(k3s.settings());
        assertStarted(driver.joinCluster(new JoinSettings("node-b", "https://10.0.0.1:6443", "K10abc::id.secret", false)));
        assertStarted(driver.joinCluster(new JoinSettings("node-c", "https://10.0.0.1:6443", "K10abc::id.secret", true)));
        String config = " --config " + k3s.settings().configFile();
        String token = " --token-file " + k3s.settings().configFile().resolveSibling("token");
        assertEquals(List.of("agent --server https://10.0.0.1:6443" + token + config,
                "server --server https://10.0.0.1:6443" + token + config), k3s.invocations());
        assertEquals(golden("""
                node-name: "node-c"
                write-kubeconfig: "KUBECONFIG"
                write-kubeconfig-mode: "0600"
                """), Files.readString(k3s.configCopy()));
    }

    @Test
    @DisplayName("without a k3s binary the driver answers 'Kubernetes: not installed' instead of failing")
    void missingBinaryIsNotInstalled() throws Exception {
        var settings = new K3sSettings(dir.resolve("absent/k3s"), dir.resolve("config.yaml"), dir.resolve("k3s.yaml"),
                Duration.ofSeconds(1), Duration.ofMillis(100));
        var result = new K3sDriver(settings).initCluster(new ClusterSettings("n", "c", "", "", "", List.of()));
        assertInstanceOf(DriverResult.NotInstalled.class, result);
        assertTrue(result.describe().startsWith("Kubernetes: not installed"), result.describe());
    }

    @Test
    @DisplayName("a k3s that exits non-zero is a failure naming its exit code and log")
    void failingK3sIsFailed() throws Exception {
        StandInK3s k3s = StandInK3s.create(dir, 3);
        var result = new K3sDriver(k3s.settings()).joinCluster(new JoinSettings("n", "https://h:6443", "t", false));
        assertInstanceOf(DriverResult.Failed.class, result);
        assertTrue(result.describe().contains("exited with 3"), result.describe());
    }

    private String golden(String body) {
        return "# Written by the sextant node bootstrapper; do not edit.\n"
                + body.replace("KUBECONFIG", dir.resolve("etc/k3s.yaml").toString());
    }

    private static Started assertStarted(DriverResult result) {
        assertInstanceOf(DriverResult.Started.class, result, result.describe());
        return new Started(((DriverResult.Started) result).kubeconfig());
    }

    private record Started(byte[] kubeconfig) {
    }
}
