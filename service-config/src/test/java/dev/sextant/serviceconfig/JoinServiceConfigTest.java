package dev.sextant.serviceconfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class JoinServiceConfigTest {

    @Test
    void defaultsAreThePathsOfTheKubernetesPod() {
        JoinServiceConfig c = JoinServiceConfig.defaults();
        assertEquals(Path.of("/var/config/measurements/measurements.json"), c.measurements().file());
        assertEquals(Optional.of(Path.of("/var/config/ek-ca/ek-ca.pem")), c.ekCaFile());
        assertEquals(JoinServiceConfig.Distribution.K3S, c.kubernetes().distribution());
        assertEquals(Duration.ofMinutes(15), c.tokenTtl());
        assertTrue(c.atls().enabled());
        assertTrue(c.atls().serverTpm().isEmpty());
        assertTrue(c.initNode().isEmpty());
        assertTrue(c.masterSecret().isEmpty(), "a join service admits control planes only when given the master secret");
    }

    @Test
    void theMasterSecretIsNamedByBothFilesOrNotAtAll() {
        ConfigException half = assertThrows(ConfigException.class,
                () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.MASTER_SECRET_FILE, "/s/kms/mastersecret")));
        assertTrue(half.getMessage().contains("must be set together"), half.getMessage());
    }

    @Test
    void renderedPropertiesParseBackToTheSameRecord() throws Exception {
        JoinServiceConfig c = JoinServiceConfig.defaults().toBuilder()
                .ports(ServerPorts.of(9090, 9091))
                .kubernetes(new JoinServiceConfig.Kubernetes(false, JoinServiceConfig.Distribution.KUBEADM,
                        Optional.of("http://127.0.0.1:1234"), "kube-system", Duration.ofMillis(1500)))
                .atls(new JoinServiceConfig.Atls(true, Optional.of("device:/dev/tpmrm0"), Path.of("/nonexistent")))
                .apiServerEndpoint("10.0.0.1:6443")
                .initNode(Optional.of(new JoinServiceConfig.InitNode("000b" + "ab".repeat(32), "control-plane-0",
                        List.of("6f1c3e0a-1b2c-4d5e-8f90-123456789abc"), "10.0.2.2:40123")))
                .memberCertificateValidity(Duration.ofMinutes(90))
                .masterSecret(Optional.of(new JoinServiceConfig.MasterSecret(Path.of("/s/kms/mastersecret"), Path.of("/s/kms/salt"))))
                .build();
        assertEquals(c, JoinServiceConfig.from(c.toProperties()));
        Properties p = new Properties();
        p.load(new StringReader(c.toPropertiesText("test")));
        assertEquals(c, JoinServiceConfig.from(p));
    }

    @Test
    void aBlankValueTakesTheDefault() {
        JoinServiceConfig c = JoinServiceConfig.from(Map.of(JoinServiceConfig.KMS_SOCKET, " ",
                JoinServiceConfig.INIT_NODE_AK_NAME, "", JoinServiceConfig.KUBERNETES_DISTRIBUTION, ""));
        assertEquals(Path.of("/run/sextant/kms/kms.sock"), c.kms().socket());
        assertTrue(c.initNode().isEmpty());
    }

    @Test
    void trustingAnyAkDropsTheEkCaDefaultButNotANamedBundle() {
        assertTrue(JoinServiceConfig.from(Map.of(JoinServiceConfig.INSECURE_TRUST_ANY_AK, "true")).ekCaFile().isEmpty());
        assertEquals(Optional.of(Path.of("/x.pem")), JoinServiceConfig.from(Map.of(JoinServiceConfig.INSECURE_TRUST_ANY_AK, "true",
                JoinServiceConfig.EK_CA_FILE, "/x.pem")).ekCaFile());
    }

    @Test
    void aMalformedDurationIsRefusedNamingTheProperty() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.TOKEN_TTL, "fifteen minutes")));
        assertTrue(e.getMessage().contains(JoinServiceConfig.TOKEN_TTL), e.getMessage());
        assertThrows(ConfigException.class, () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.KMS_DEADLINE, "0s")));
    }

    @Test
    void anUnknownDistributionIsRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.KUBERNETES_DISTRIBUTION, "rke2")));
        assertTrue(e.getMessage().contains("k3s or kubeadm"), e.getMessage());
    }

    @Test
    void aBooleanMustBeTrueOrFalse() {
        assertThrows(ConfigException.class, () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.ATLS_ENABLED, "yes")));
    }

    @Test
    void aPortOutOfRangeIsRefused() {
        assertThrows(ConfigException.class, () -> JoinServiceConfig.from(Map.of(ServerPorts.GRPC_PORT, "70000")));
    }

    @Test
    void theInitNodeIsAllOrNothing() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.INIT_NODE_NODE_NAME, "control-plane-0")));
        assertTrue(e.getMessage().contains("must be set together"), e.getMessage());
        assertThrows(ConfigException.class, () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.INIT_NODE_AK_NAME, "xyz",
                JoinServiceConfig.INIT_NODE_NODE_NAME, "n", JoinServiceConfig.INIT_NODE_DISK_UUIDS, "u")));
    }

    @Test
    void etcdIsReachedOverHttpsOnlyAndTheControlPlaneLimitIsOneToSeven() {
        ConfigException plain = assertThrows(ConfigException.class,
                () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.ETCD_ENDPOINTS, "https://10.0.0.1:2379,http://10.0.0.2:2379")));
        assertTrue(plain.getMessage().contains("'http://10.0.0.2:2379' is not an https:// URL"), plain.getMessage());
        assertEquals(java.util.List.of("https://10.0.0.1:2379", "https://10.0.0.2:2379"), JoinServiceConfig.from(
                Map.of(JoinServiceConfig.ETCD_ENDPOINTS, "https://10.0.0.1:2379, https://10.0.0.2:2379")).etcd().endpoints());
        assertEquals(3, JoinServiceConfig.defaults().controlPlanes());
        ConfigException tooMany = assertThrows(ConfigException.class,
                () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.CONTROL_PLANES, "8")));
        assertTrue(tooMany.getMessage().contains("between 1 and 7, got 8"), tooMany.getMessage());
        assertThrows(ConfigException.class, () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.CONTROL_PLANES, "three")));
    }

    @Test
    void everyRenderedNameIsOneTheRecordReads() {
        JoinServiceConfig c = JoinServiceConfig.defaults().toBuilder().ports(ServerPorts.of(1, 2)).build();
        java.util.Set<String> names = new java.util.HashSet<>(JoinServiceConfig.KEYS);
        names.addAll(List.of(ServerPorts.GRPC_PORT, ServerPorts.MANAGEMENT_PORT));
        assertTrue(names.containsAll(c.toProperties().keySet()), c.toProperties().keySet().toString());
        assertFalse(c.toPropertiesText("x").contains("\r"));
    }

    @Test
    void kmsPropertiesRoundTrip() {
        KmsConfig k = KmsConfig.of(9092, Path.of("/run/s/kms.sock"), java.util.Set.of(0, 10001), Path.of("/s/mastersecret"),
                Path.of("/s/salt"));
        assertEquals(k, KmsConfig.from(k.toProperties()));
        assertEquals("0,10001", k.toProperties().get(KmsConfig.PEER_UIDS));
        KmsConfig defaults = KmsConfig.from(Map.of());
        assertEquals(Path.of("/var/config/salt"), defaults.saltFile());
        assertEquals(Path.of("/run/sextant/kms/kms.sock"), defaults.socket());
        assertEquals(java.util.Set.of(10001), defaults.peerUids(), "the join service's uid in its pod");
    }

    @Test
    void kmsHasNoGrpcPortAndAnswersSomeone() {
        ConfigException port = assertThrows(ConfigException.class, () -> KmsConfig.from(Map.of(ServerPorts.GRPC_PORT, "9000")));
        assertTrue(port.getMessage().contains("Unix socket"), port.getMessage());
        assertThrows(ConfigException.class, () -> KmsConfig.from(Map.of(KmsConfig.PEER_UIDS, "joinservice")));
        assertThrows(ConfigException.class, () -> KmsConfig.from(Map.of(KmsConfig.PEER_UIDS, ",")));
        assertThrows(ConfigException.class, () -> JoinServiceConfig.from(Map.of(JoinServiceConfig.KMS_SOCKET, "kms.sock")));
    }
}
