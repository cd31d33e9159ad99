package dev.sextant.etcd.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("EtcdMemberConfig: the etcd command line of one member, for a child process or a systemd unit")
class EtcdMemberConfigTest {
    private static final EtcdTlsFiles CLIENT = new EtcdTlsFiles(Path.of("/tls/ca.crt"), Path.of("/tls/cp-1.crt"), Path.of("/tls/cp-1.key"));
    private static final EtcdTlsFiles PEER = new EtcdTlsFiles(Path.of("/peer/ca.crt"), Path.of("/peer/cp-1.crt"), Path.of("/peer/cp-1.key"));

    @Test
    @DisplayName("a member joining a cluster: https listeners only, client certificates of the CA required on both ports, the initial cluster sorted by name")
    void joiningMember() {
        EtcdMemberConfig config = new EtcdMemberConfig("cp-1", Path.of("/var/lib/etcd"), "https://10.0.0.2:2379", "https://10.0.0.2:2380",
                Map.of("cp-1", "https://10.0.0.2:2380", "cp-0", "https://10.0.0.1:2380"), EtcdMemberConfig.ClusterState.EXISTING,
                "c0ffee", CLIENT, PEER);
        assertEquals(List.of(
                "--name=cp-1",
                "--data-dir=/var/lib/etcd",
                "--listen-client-urls=https://10.0.0.2:2379",
                "--advertise-client-urls=https://10.0.0.2:2379",
                "--listen-peer-urls=https://10.0.0.2:2380",
                "--initial-advertise-peer-urls=https://10.0.0.2:2380",
                "--initial-cluster=cp-0=https://10.0.0.1:2380,cp-1=https://10.0.0.2:2380",
                "--initial-cluster-state=existing",
                "--initial-cluster-token=c0ffee",
                "--client-cert-auth",
                "--trusted-ca-file=/tls/ca.crt",
                "--cert-file=/tls/cp-1.crt",
                "--key-file=/tls/cp-1.key",
                "--peer-client-cert-auth",
                "--peer-trusted-ca-file=/peer/ca.crt",
                "--peer-cert-file=/peer/cp-1.crt",
                "--peer-key-file=/peer/cp-1.key",
                "--enable-v2=false",
                "--auto-tls=false",
                "--peer-auto-tls=false",
                "--strict-reconfig-check=true",
                "--heartbeat-interval=100",
                "--election-timeout=1000",
                "--logger=zap",
                "--log-outputs=stderr"), config.arguments());
        assertEquals("10.0.0.2:2379", config.clientEndpoint());
    }

    @Test
    @DisplayName("a slower heartbeat (guests on shared emulated cores) keeps the election timeout at ten heartbeats; none beyond etcd's bounds")
    void heartbeat() {
        EtcdMemberConfig config = member(Duration.ofMillis(500));
        assertTrue(config.arguments().containsAll(List.of("--heartbeat-interval=500", "--election-timeout=5000")),
                config.arguments().toString());
        for (Duration wrong : List.of(Duration.ZERO, Duration.ofNanos(500), Duration.ofMillis(5001), Duration.ofMinutes(1))) {
            var e = assertThrows(IllegalArgumentException.class, () -> member(wrong));
            assertTrue(e.getMessage().contains("heartbeat is 1 ms to 5 s"), e.getMessage());
        }
    }

    @Test
    @DisplayName("the first member of a new cluster lists itself alone, with state new")
    void firstMember() {
        List<String> args = EtcdMemberConfig.first("cp-0", Path.of("/d"), "https://10.0.0.1:2379", "https://10.0.0.1:2380", "c0ffee", CLIENT)
                .arguments();
        assertTrue(args.contains("--initial-cluster=cp-0=https://10.0.0.1:2380"), args.toString());
        assertTrue(args.contains("--initial-cluster-state=new"), args.toString());
    }

    @Test
    @DisplayName("a plaintext http:// URL, a URL with a path or without a port is refused for either port: etcd listens on TLS only")
    void plaintextUrlsRefused() {
        for (String bad : List.of("http://10.0.0.1:2379", "https://10.0.0.1:2379/x", "https://10.0.0.1", "unix:///run/etcd.sock")) {
            assertThrows(IllegalArgumentException.class, () -> EtcdMemberConfig.first("cp-0", Path.of("/d"), bad, "https://10.0.0.1:2380", "t", CLIENT), bad);
            assertThrows(IllegalArgumentException.class, () -> EtcdMemberConfig.first("cp-0", Path.of("/d"), "https://10.0.0.1:2379", bad, "t", CLIENT), bad);
        }
    }

    @Test
    @DisplayName("an initial cluster without this member at its own peer URL, and names that would break --initial-cluster, are refused")
    void malformedClusterRefused() {
        assertThrows(IllegalArgumentException.class, () -> EtcdMemberConfig.joining("cp-1", Path.of("/d"), "https://10.0.0.2:2379",
                "https://10.0.0.2:2380", Map.of("cp-0", "https://10.0.0.1:2380"), "t", CLIENT));
        assertThrows(IllegalArgumentException.class, () -> EtcdMemberConfig.joining("cp-1", Path.of("/d"), "https://10.0.0.2:2379",
                "https://10.0.0.2:2380", Map.of("cp-1", "https://10.0.0.9:2380"), "t", CLIENT));
        assertThrows(IllegalArgumentException.class, () -> EtcdMemberConfig.first("cp-1,cp-2=https://evil:1", Path.of("/d"),
                "https://10.0.0.2:2379", "https://10.0.0.2:2380", "t", CLIENT));
    }

    @Test
    @DisplayName("a member may advertise names and bind addresses; a host name to bind is refused, as etcd itself refuses it")
    void advertisedNamesBoundAddresses() {
        String peer = "https://etcd-cp-0.internal.c:2380";
        List<String> args = new EtcdMemberConfig("cp-0", Path.of("/d"), "https://etcd-cp-0.internal.c:2379", peer, Map.of("cp-0", peer),
                EtcdMemberConfig.ClusterState.NEW, "c0ffee", CLIENT, CLIENT, "https://0.0.0.0:2379", "https://0.0.0.0:2380").arguments();
        assertTrue(args.containsAll(List.of("--listen-client-urls=https://0.0.0.0:2379", "--advertise-client-urls=https://etcd-cp-0.internal.c:2379",
                "--listen-peer-urls=https://0.0.0.0:2380", "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=cp-0=" + peer)), args.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EtcdMemberConfig.first("cp-0", Path.of("/d"), "https://10.0.0.1:2379", peer, "c0ffee", CLIENT));
        assertTrue(e.getMessage().contains("binds IP addresses only"), e.getMessage());
    }

    private static EtcdMemberConfig member(Duration heartbeat) {
        String peer = "https://10.0.0.1:2380";
        return new EtcdMemberConfig("cp-0", Path.of("/d"), "https://10.0.0.1:2379", peer, Map.of("cp-0", peer),
                EtcdMemberConfig.ClusterState.NEW, "c0ffee", CLIENT, CLIENT, "https://10.0.0.1:2379", peer, heartbeat);
    }
}
