package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.process.EtcdMemberConfig;
import static dev.sextant.nodeboot.deploy.DeployInputs.MEASUREMENTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.nodeboot.kubernetes.ExternalEtcd;
import io.grpc.Status;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kubernetes' datastore as a real etcd member: the deployer writes its files, {@link EtcdUnitAsProcess}
 * runs the image's sextant-etcd.service from them, and a client holding what k3s is given (its config.yaml's
 * datastore settings) talks to it as k3s' etcd driver would, over mutual TLS on loopback.
 */
@DisplayName("Kubernetes' state in the control plane's real etcd member")
class KubernetesEtcdTest {
    private static final LoopbackPorts PORTS = new LoopbackPorts();
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final String KEY = "/registry/secrets/kube-system/sextant-master-secret";

    @TempDir
    Path dir;

    private EtcdUnitAsProcess systemd;
    private ExternalEtcd k3s;

    @BeforeEach
    void start() throws Exception {
        EtcdInstalled.require();
        systemd = new EtcdUnitAsProcess(dir.resolve("services"), dir.resolve("etcd.log"));
        NodeLocalSettings settings = new NodeLocalSettings(dir.resolve("services"), Path.of("/run/sextant/kms/kms.sock"), 9090, "", Duration.ofSeconds(30),
                PORTS.next(), PORTS.next(), "", 0, 0, "test", dir.resolve("hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT);
        KubernetesServices services = new KubernetesServices(new KubernetesServicesSettings("sextant/join-service@sha256:"
                + "a".repeat(64), "sextant/kms@sha256:" + "b".repeat(64), 30090), settings, systemd, new EtcdStatusProbe());
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        k3s = services.startEtcd(DeployInputs.input(DeployInputs.signed(dir, MEASUREMENTS), secret, new byte[32])).etcd();
    }

    @AfterEach
    void stop() throws InterruptedException {
        systemd.close();
    }

    @Test
    @DisplayName("k3s with its datastore settings writes Kubernetes' objects to the member and reads them back")
    void k3sReachesTheMember() {
        try (EtcdClient client = client(new EtcdTlsFiles(k3s.caFile(), k3s.certFile(), k3s.keyFile()))) {
            client.put(KEY, "object");
            assertEquals(Optional.of("object"), client.get(KEY));
        }
    }

    @Test
    @DisplayName("a client certificate named k3s of another CA (another master secret's, a worker's) is refused in the TLS handshake and reads nothing")
    void certificateOfAnotherCaRefused() {
        try (EtcdClient k3sClient = client(new EtcdTlsFiles(k3s.caFile(), k3s.certFile(), k3s.keyFile()))) {
            k3sClient.put(KEY, "object");
        }
        EtcdCa stranger = new EtcdCa(new SecureRandom().generateSeed(32), new SecureRandom());
        EtcdTlsFiles own = EtcdTlsFiles.write(dir.resolve("stranger"), "k3s", stranger.certificate(),
                stranger.issueClient("k3s", Instant.now(), EtcdCa.DEFAULT_VALIDITY));
        // It trusts the cluster's CA certificate (which is no secret), so only the member's check can refuse it.
        try (EtcdClient attacker = client(new EtcdTlsFiles(k3s.caFile(), own.certFile(), own.keyFile()))) {
            EtcdException e = assertThrows(EtcdException.class, () -> attacker.get(KEY));
            assertEquals(Status.Code.UNAVAILABLE, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("TLS handshake failed"), e.getMessage());
            assertFalse(e.getMessage().contains("object"));
        }
    }

    private EtcdClient client(EtcdTlsFiles tls) {
        URI endpoint = URI.create(k3s.endpoint());
        return new EtcdClient(new EtcdClientConfig(List.of(endpoint.getHost() + ":" + endpoint.getPort()), tls, TIMEOUT));
    }
}
