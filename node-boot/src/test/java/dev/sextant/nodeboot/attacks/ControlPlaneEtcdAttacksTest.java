package dev.sextant.nodeboot.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.testkit.Tmpfs;
import dev.sextant.nodeboot.deploy.ControlPlaneEtcd;
import dev.sextant.nodeboot.deploy.DeployInputs;
import dev.sextant.nodeboot.deploy.RealEtcdNode;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.Status;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control plane's etcd as init leaves it running: only what the master secret derives may talk to it.
 * The attacker's certificate comes from the same derivation the node uses (ControlPlaneEtcd.ca), from a
 * master secret of its own, so the row also fails if that derivation stops depending on the secret.
 */
@DisplayName("Attacks on a control plane's etcd")
class ControlPlaneEtcdAttacksTest {
    private static final String KEY = "/sextant/v1/bindings/disk/victim-disk";
    private static final String VALUE = "ak-of-the-victim-0123456789abcdef";

    @TempDir(factory = Tmpfs.class)
    Path dir;

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }

    @Test
    @DisplayName("a machine without the master secret (a worker, a stranger) cannot talk to the control plane's etcd: its certificate, of the etcd CA its own secret derives, is refused by etcd's TLS")
    void withoutTheMasterSecret() throws Exception {
        byte[] salt = random();
        try (RealEtcdNode node = new RealEtcdNode(dir.resolve("node"))) {
            node.services.deploy(DeployInputs.input(DeployInputs.signed(dir.resolve("m"), DeployInputs.MEASUREMENTS), random(), salt));
            try (EtcdClient join = node.joinServiceClient()) {
                join.put(KEY, VALUE);
            }
            // The salt is no secret to count on: the stranger has it. It names itself as the join service does.
            EtcdCa stranger = ControlPlaneEtcd.ca(random(), salt);
            EtcdTlsFiles own = EtcdTlsFiles.write(dir.resolve("stranger"), "join-service", stranger.certificate(),
                    stranger.issueClient("join-service", Instant.now(), EtcdCa.DEFAULT_VALIDITY));
            JoinServiceConfig.Etcd cluster = node.joinConfig().etcd();
            // It trusts the cluster's CA certificate (no secret either), so only etcd's check can refuse it.
            try (EtcdClient attacker = node.client(new EtcdTlsFiles(cluster.caFile(), own.certFile(), own.keyFile()))) {
                EtcdException read = assertThrows(EtcdException.class, () -> attacker.get(KEY));
                assertEquals(Status.Code.UNAVAILABLE, read.code(), read.getMessage());
                assertTrue(read.getMessage().contains("TLS handshake failed"), read.getMessage());
                assertFalse(read.getMessage().contains(VALUE));
                assertThrows(EtcdException.class, () -> attacker.put(KEY, "ak-of-the-attacker"));
            }
            try (EtcdClient join = node.joinServiceClient()) {
                assertEquals(Optional.of(VALUE), join.get(KEY), "the binding is the victim's still");
            }
        }
    }
}
