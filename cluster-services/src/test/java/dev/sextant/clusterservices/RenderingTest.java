package dev.sextant.clusterservices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.util.Yaml;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Rendering the KMS and join service objects from a ServicesConfig")
class RenderingTest {
    /** Regenerate with -Dsextant.golden.update=true after an intended change, and review the diff. */
    private static final Path GOLDEN = Path.of("src/test/resources/golden/rendered.yaml");

    private final List<KubernetesObject> rendered = ClusterServices.render(TestServices.fixed());

    @Test
    @DisplayName("the rendering is exactly the reviewed golden file")
    void matchesGoldenFile() throws Exception {
        String yaml = Yaml.dumpAll(rendered.iterator());
        if (Boolean.getBoolean("sextant.golden.update")) {
            Files.createDirectories(GOLDEN.getParent());
            Files.writeString(GOLDEN, yaml);
        }
        assertEquals(Files.readString(GOLDEN), yaml);
    }

    @Test
    @DisplayName("rendering twice gives the same bytes")
    void isRepeatable() {
        assertEquals(Yaml.dumpAll(rendered.iterator()), Yaml.dumpAll(ClusterServices.render(TestServices.fixed()).iterator()));
    }

    @Test
    @DisplayName("the images, the API endpoint and the NodePort land where the services read them")
    void valuesLandInTheirFields() {
        V1PodSpec join = pod(ClusterServices.JOIN_DAEMONSET);
        assertEquals(TestServices.JOIN_IMAGE, join.getContainers().get(0).getImage());
        assertEquals(TestServices.JOIN_IMAGE, join.getInitContainers().get(0).getImage());
        assertEquals("10.0.0.1:6443", env(join.getContainers().get(0), "SEXTANT_API_SERVER_ENDPOINT"));
        assertEquals(TestServices.KMS_IMAGE, pod(ClusterServices.KMS_DAEMONSET).getContainers().get(0).getImage());
        V1Service joinService = ClusterServices.find(rendered, V1Service.class, "join-service");
        assertEquals("NodePort", joinService.getSpec().getType());
        assertEquals(30090, joinService.getSpec().getPorts().get(0).getNodePort());
        assertEquals(9090, joinService.getSpec().getPorts().get(0).getPort());
        V1Service keyService = ClusterServices.find(rendered, V1Service.class, "key-service");
        assertEquals("ClusterIP", keyService.getSpec().getType());
        assertEquals(9000, keyService.getSpec().getPorts().get(0).getPort());
    }

    @Test
    @DisplayName("measurements, signature and measurement salt are in join-config, mounted where the join service reads them")
    void joinConfigCarriesTheMeasurements() {
        V1ConfigMap joinConfig = ClusterServices.find(rendered, V1ConfigMap.class, "join-config");
        assertEquals(TestServices.measurementsJson(0x11), joinConfig.getData().get("measurements.json"));
        assertEquals("c2lnbmF0dXJl\n", joinConfig.getData().get("measurements.json.sig"));
        assertArrayEquals(TestServices.bytes(32, 0x44), joinConfig.getBinaryData().get("measurementSalt"));
        V1Container join = pod(ClusterServices.JOIN_DAEMONSET).getContainers().get(0);
        assertEquals("/var/config/join/measurements.json", env(join, "SEXTANT_JOIN_MEASUREMENTS_FILE"));
        assertEquals("/var/config/join/measurementSalt", env(join, "SEXTANT_JOIN_MEASUREMENT_SALT_FILE"));
        assertTrue(join.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/var/config/join")));
    }

    @Test
    @DisplayName("the master secret is a Secret mounted by the KMS only, and the KMS gets no API token")
    void masterSecretReachesOnlyTheKms() {
        V1Secret secret = ClusterServices.find(rendered, V1Secret.class, "sextant-master-secret");
        assertArrayEquals(TestServices.bytes(32, 0x42), secret.getData().get("mastersecret"));
        assertArrayEquals(TestServices.bytes(32, 0x43), secret.getData().get("salt"));
        assertTrue(mountsSecret(pod(ClusterServices.KMS_DAEMONSET), "sextant-master-secret"));
        assertFalse(mountsSecret(pod(ClusterServices.JOIN_DAEMONSET), "sextant-master-secret"));
        assertFalse(ClusterServices.find(rendered, V1ServiceAccount.class, "sextant-kms").getAutomountServiceAccountToken());
        assertFalse(pod(ClusterServices.KMS_DAEMONSET).getAutomountServiceAccountToken());
    }

    @Test
    @DisplayName("both workloads run non-root on control-plane nodes and are probed on /health of their management port")
    void workloadsAreNonRootControlPlaneDaemonSets() {
        for (String name : List.of(ClusterServices.JOIN_DAEMONSET, ClusterServices.KMS_DAEMONSET)) {
            V1PodSpec pod = pod(name);
            assertTrue(pod.getSecurityContext().getRunAsNonRoot(), name);
            assertEquals(10001L, pod.getSecurityContext().getRunAsUser(), name);
            assertEquals("node-role.kubernetes.io/control-plane", pod.getAffinity().getNodeAffinity()
                    .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0).getMatchExpressions().get(0).getKey());
            assertTrue(pod.getTolerations().stream().anyMatch(t -> "node-role.kubernetes.io/control-plane".equals(t.getKey())), name);
            V1Container c = pod.getContainers().get(0);
            assertEquals("/health", c.getReadinessProbe().getHttpGet().getPath());
            assertEquals("/health", c.getLivenessProbe().getHttpGet().getPath());
            assertEquals(9091, c.getPorts().stream().filter(p -> p.getName().equals("management")).findFirst().orElseThrow().getContainerPort());
            assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation(), name);
        }
    }

    @Test
    @DisplayName("the k3s cluster CA is mounted read-only from the host, only into the copy step")
    void clusterCaComesReadOnlyFromK3s() {
        V1PodSpec join = pod(ClusterServices.JOIN_DAEMONSET);
        V1Volume tls = join.getVolumes().stream().filter(v -> v.getHostPath() != null).findFirst().orElseThrow();
        assertEquals("/var/lib/rancher/k3s/server/tls", tls.getHostPath().getPath());
        assertTrue(join.getInitContainers().get(0).getVolumeMounts().stream()
                .anyMatch(m -> m.getName().equals(tls.getName()) && m.getReadOnly()));
        assertTrue(join.getContainers().get(0).getVolumeMounts().stream().noneMatch(m -> m.getName().equals(tls.getName())));
        assertEquals("/var/config/cluster-ca/client-ca.key", env(join.getContainers().get(0), "SEXTANT_JOIN_CA_KEY_FILE"));
    }

    @Test
    @DisplayName("the configuration's text form names no secret")
    void configToStringHidesSecrets() {
        String text = TestServices.fixed().toString();
        assertFalse(text.contains(new String(TestServices.bytes(32, 0x42), StandardCharsets.ISO_8859_1)));
        assertFalse(text.contains("QkJC"), text); // base64 of the master secret's bytes
        assertTrue(text.contains("redacted"));
    }

    private V1PodSpec pod(String daemonSet) {
        return ClusterServices.find(rendered, V1DaemonSet.class, daemonSet).getSpec().getTemplate().getSpec();
    }

    private static String env(V1Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElseThrow().getValue();
    }

    private static boolean mountsSecret(V1PodSpec pod, String secret) {
        return pod.getVolumes().stream().anyMatch(v -> v.getSecret() != null && secret.equals(v.getSecret().getSecretName()));
    }
}
