package dev.sextant.clusterservices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.util.Yaml;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
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
    @DisplayName("the images, the API endpoint and the NodePort land where the services read them; the KMS has no Service")
    void valuesLandInTheirFields() {
        V1PodSpec pod = pod(ClusterServices.JOIN_DAEMONSET);
        assertEquals(TestServices.JOIN_IMAGE, container(pod, ClusterServices.JOIN_CONTAINER).getImage());
        assertEquals(TestServices.KMS_IMAGE, container(pod, ClusterServices.KMS_CONTAINER).getImage());
        assertEquals("10.0.0.1:6443", joinServiceConfig().apiServerEndpoint());
        V1Service joinService = ClusterServices.find(rendered, V1Service.class, "join-service");
        assertEquals("NodePort", joinService.getSpec().getType());
        assertEquals(30090, joinService.getSpec().getPorts().get(0).getNodePort());
        assertEquals(9090, joinService.getSpec().getPorts().get(0).getPort());
        assertEquals(List.of("join-service"), rendered.stream().filter(V1Service.class::isInstance)
                .map(o -> o.getMetadata().getName()).toList(), "no Service reaches the KMS");
    }

    @Test
    @DisplayName("the init node's AK name, node name and disks are in join-config's join.properties, read by the join service at start")
    void initNodeBindingIsRendered() {
        JoinServiceConfig.InitNode init = joinServiceConfig().initNode().orElseThrow();
        assertEquals(TestServices.INIT_NODE.akNameHex(), init.akNameHex());
        assertEquals("control-plane-0", init.nodeName());
        assertEquals(TestServices.INIT_NODE.diskUuids(), init.diskUuids());
    }

    @Test
    @DisplayName("the join service reads its whole configuration from join.properties, rendered from the same JoinServiceConfig")
    void joinServiceReadsTheRenderedRecord() {
        V1Container join = container(pod(ClusterServices.JOIN_DAEMONSET), ClusterServices.JOIN_CONTAINER);
        // SEXTANT_NODE_IP is no setting: join.properties' etcd endpoint names it, to be resolved in each pod.
        assertEquals(List.of("MICRONAUT_CONFIG_FILES", "SEXTANT_NODE_IP"), join.getEnv().stream().map(e -> e.getName()).toList(),
                "no setting bypasses the record");
        assertEquals("/var/config/join/" + ClusterServices.JOIN_PROPERTIES_KEY, env(join, "MICRONAUT_CONFIG_FILES"));
        assertTrue(join.getVolumeMounts().stream().anyMatch(m -> m.getName().equals("join-config")
                && m.getMountPath().equals("/var/config/join")));
        assertEquals(ClusterServices.joinServiceConfig(TestServices.fixed()), joinServiceConfig());
    }

    @Test
    @DisplayName("the join service attests itself with the host's TPM: /dev/tpmrm0 mounted as a character device, named in its configuration")
    void joinServiceGetsTheHostTpm() {
        V1PodSpec pod = pod(ClusterServices.JOIN_DAEMONSET);
        assertEquals(java.util.Optional.of("device:/dev/tpmrm0"), joinServiceConfig().atls().serverTpm());
        assertTrue(joinServiceConfig().atls().enabled());
        var tpm = pod.getVolumes().stream().filter(v -> v.getHostPath() != null).toList();
        assertEquals(1, tpm.size(), "one host path");
        assertEquals("/dev/tpmrm0", tpm.get(0).getHostPath().getPath());
        assertEquals("CharDevice", tpm.get(0).getHostPath().getType());
        assertTrue(container(pod, ClusterServices.JOIN_CONTAINER).getVolumeMounts().stream()
                .anyMatch(m -> m.getName().equals(tpm.get(0).getName()) && m.getMountPath().equals("/dev/tpmrm0")));
        assertTrue(pod.getSecurityContext().getSupplementalGroups().contains(10002L), "the device's group");
    }

    @Test
    @DisplayName("the KMS is reachable by the join service only: same pod, their shared socket, and a default-deny NetworkPolicy admitting only port 9090")
    void kmsOnlyBesideTheJoinService() {
        V1PodSpec pod = pod(ClusterServices.JOIN_DAEMONSET);
        assertEquals(java.nio.file.Path.of(ClusterServices.KMS_SOCKET), joinServiceConfig().kms().socket());
        V1Container kms = container(pod, ClusterServices.KMS_CONTAINER);
        assertEquals(List.of(9092), kms.getPorts().stream().map(p -> p.getContainerPort()).toList(), "the management port only");
        V1NetworkPolicy policy = ClusterServices.find(rendered, V1NetworkPolicy.class, "sextant-default-deny");
        assertEquals(Map.of("app.kubernetes.io/part-of", "sextant"), policy.getSpec().getPodSelector().getMatchLabels());
        assertEquals(List.of("Ingress"), policy.getSpec().getPolicyTypes());
        assertEquals(1, policy.getSpec().getIngress().size());
        assertEquals(List.of(9090), policy.getSpec().getIngress().get(0).getPorts().stream()
                .map(p -> p.getPort().getIntValue()).toList());
        assertEquals("sextant", ClusterServices.find(rendered, V1DaemonSet.class, ClusterServices.JOIN_DAEMONSET)
                .getSpec().getTemplate().getMetadata().getLabels().get("app.kubernetes.io/part-of"), "the policy selects the pod");
    }

    @Test
    @DisplayName("measurements, signature and measurement salt are in join-config, mounted where the join service reads them")
    void joinConfigCarriesTheMeasurements() {
        V1ConfigMap joinConfig = ClusterServices.find(rendered, V1ConfigMap.class, "join-config");
        assertEquals(TestServices.measurementsJson(0x11), joinConfig.getData().get("measurements.json"));
        assertEquals("c2lnbmF0dXJl\n", joinConfig.getData().get("measurements.json.sig"));
        assertArrayEquals(TestServices.bytes(32, 0x44), joinConfig.getBinaryData().get("measurementSalt"));
        V1Container join = container(pod(ClusterServices.JOIN_DAEMONSET), ClusterServices.JOIN_CONTAINER);
        assertEquals(Path.of("/var/config/join/measurements.json"), joinServiceConfig().measurements().file());
        assertEquals(Path.of("/var/config/join/measurementSalt"), joinServiceConfig().measurementSaltFile());
        assertTrue(join.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/var/config/join")));
    }

    @Test
    @DisplayName("the master secret is mounted read-only by the KMS and by the join service (which hands it to the control planes it admits, from the files its configuration names); the API token by the join service container only")
    void masterSecretMounts() {
        V1Secret secret = ClusterServices.find(rendered, V1Secret.class, "sextant-master-secret");
        assertArrayEquals(TestServices.bytes(32, 0x42), secret.getData().get("mastersecret"));
        assertArrayEquals(TestServices.bytes(32, 0x43), secret.getData().get("salt"));
        V1PodSpec pod = pod(ClusterServices.JOIN_DAEMONSET);
        String secretVolume = secretVolume(pod, "sextant-master-secret");
        V1Container join = container(pod, ClusterServices.JOIN_CONTAINER);
        assertTrue(mounts(container(pod, ClusterServices.KMS_CONTAINER), secretVolume));
        assertTrue(join.getVolumeMounts().stream().filter(m -> m.getName().equals(secretVolume))
                .allMatch(m -> Boolean.TRUE.equals(m.getReadOnly())) && mounts(join, secretVolume), "read-only");
        assertEquals(Optional.of(new JoinServiceConfig.MasterSecret(ClusterServices.kmsConfig().masterSecretFile(),
                ClusterServices.kmsConfig().saltFile())), joinServiceConfig().masterSecret(), "the KMS's own files");
        assertFalse(pod.getAutomountServiceAccountToken(), "no token in every container by default");
        assertTrue(mounts(join, "kube-api-access"));
        assertFalse(mounts(container(pod, ClusterServices.KMS_CONTAINER), "kube-api-access"));
    }

    @Test
    @DisplayName("the join service reaches the etcd member of the node its pod runs on: the node's address from the downward API in its endpoint, the client certificate from a Secret mounted read-only into its container only, 0440")
    void joinServiceReachesTheNodesEtcd() {
        JoinServiceConfig.Etcd etcd = joinServiceConfig().etcd();
        assertEquals(List.of("https://${SEXTANT_NODE_IP}:2379"), etcd.endpoints(), "resolved by Micronaut from the pod's environment");
        V1PodSpec pod = pod(ClusterServices.JOIN_DAEMONSET);
        V1Container join = container(pod, ClusterServices.JOIN_CONTAINER);
        assertEquals("status.hostIP", join.getEnv().stream().filter(e -> e.getName().equals("SEXTANT_NODE_IP")).findFirst()
                .orElseThrow().getValueFrom().getFieldRef().getFieldPath());
        assertTrue(pod.getHostNetwork() == null || !pod.getHostNetwork(), "its own network namespace: 127.0.0.1 is the pod's");
        V1Secret secret = ClusterServices.find(rendered, V1Secret.class, ClusterServices.ETCD_CLIENT_SECRET);
        assertArrayEquals(TestServices.ETCD.keyPem(), secret.getData().get("join-service.key"));
        assertArrayEquals(TestServices.ETCD.certificatePem().getBytes(StandardCharsets.US_ASCII), secret.getData().get("join-service.crt"));
        assertArrayEquals(TestServices.ETCD.caPem().getBytes(StandardCharsets.US_ASCII), secret.getData().get("ca.crt"));
        String volume = secretVolume(pod, ClusterServices.ETCD_CLIENT_SECRET);
        assertEquals(0440, pod.getVolumes().stream().filter(v -> v.getName().equals(volume)).findFirst().orElseThrow()
                .getSecret().getDefaultMode());
        String mountPath = join.getVolumeMounts().stream().filter(m -> m.getName().equals(volume) && Boolean.TRUE.equals(m.getReadOnly()))
                .findFirst().orElseThrow().getMountPath();
        assertEquals(List.of(Path.of(mountPath, "ca.crt"), Path.of(mountPath, "join-service.crt"), Path.of(mountPath, "join-service.key")),
                List.of(etcd.caFile(), etcd.certFile(), etcd.keyFile()));
        assertFalse(mounts(container(pod, ClusterServices.KMS_CONTAINER), volume));
    }

    @Test
    @DisplayName("both containers run non-root on control-plane nodes, read-only, and are probed on /health of their own management port; only the join service is privileged (for the TPM)")
    void workloadsAreNonRootControlPlaneDaemonSets() {
        V1PodSpec pod = pod(ClusterServices.JOIN_DAEMONSET);
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        assertEquals(10001L, pod.getSecurityContext().getRunAsUser());
        assertEquals("node-role.kubernetes.io/control-plane", pod.getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0).getMatchExpressions().get(0).getKey());
        assertTrue(pod.getTolerations().stream().anyMatch(t -> "node-role.kubernetes.io/control-plane".equals(t.getKey())));
        assertTrue(pod.getInitContainers() == null || pod.getInitContainers().isEmpty(), "no root init container");
        assertTrue(container(pod, ClusterServices.JOIN_CONTAINER).getSecurityContext().getPrivileged());
        V1Container kms = container(pod, ClusterServices.KMS_CONTAINER);
        assertTrue(kms.getSecurityContext().getPrivileged() == null || !kms.getSecurityContext().getPrivileged());
        assertFalse(kms.getSecurityContext().getAllowPrivilegeEscalation());
        Map<String, Integer> managementPorts = Map.of(ClusterServices.JOIN_CONTAINER, 9091, ClusterServices.KMS_CONTAINER, 9092);
        for (V1Container c : pod.getContainers()) {
            assertEquals("/health", c.getReadinessProbe().getHttpGet().getPath());
            assertEquals("/health", c.getLivenessProbe().getHttpGet().getPath());
            String port = c.getReadinessProbe().getHttpGet().getPort().getStrValue();
            assertEquals(managementPorts.get(c.getName()), c.getPorts().stream().filter(p -> p.getName().equals(port))
                    .findFirst().orElseThrow().getContainerPort(), c.getName());
            assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem(), c.getName());
            assertTrue(c.getSecurityContext().getRunAsUser() == null, c.getName() + " keeps the pod's non-root user");
        }
    }

    @Test
    @DisplayName("k3s: no CA private key reaches the pod; the CA nodes pin is the service account's ca.crt")
    void noClusterCaKey() {
        V1PodSpec pod = pod(ClusterServices.JOIN_DAEMONSET);
        assertTrue(pod.getVolumes().stream().noneMatch(v -> v.getHostPath() != null && !v.getHostPath().getPath().equals("/dev/tpmrm0")),
                "no host path but the TPM");
        JoinServiceConfig config = joinServiceConfig();
        // The key file is read for kubeadm only, and nothing is mounted where its default points.
        assertEquals(JoinServiceConfig.Distribution.K3S, config.kubernetes().distribution());
        Path keyDir = config.ca().keyFile().getParent();
        assertTrue(container(pod, ClusterServices.JOIN_CONTAINER).getVolumeMounts().stream()
                .noneMatch(m -> keyDir.startsWith(m.getMountPath())), "no CA key directory mounted");
        assertEquals(Path.of("/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"), config.ca().certFile());
    }

    @Test
    @DisplayName("the configuration's text form names no secret")
    void configToStringHidesSecrets() {
        String text = TestServices.fixed().toString();
        assertFalse(text.contains(new String(TestServices.bytes(32, 0x42), StandardCharsets.ISO_8859_1)));
        assertFalse(text.contains("QkJC"), text); // base64 of the master secret's bytes
        assertTrue(text.contains("redacted"));
    }

    private static String secretVolume(V1PodSpec pod, String secretName) {
        return pod.getVolumes().stream().filter(v -> v.getSecret() != null && secretName.equals(v.getSecret().getSecretName()))
                .findFirst().orElseThrow().getName();
    }

    /** join.properties parsed the way the join service binds it. */
    private JoinServiceConfig joinServiceConfig() {
        V1ConfigMap joinConfig = ClusterServices.find(rendered, V1ConfigMap.class, "join-config");
        Properties p = new Properties();
        try {
            p.load(new StringReader(joinConfig.getData().get(ClusterServices.JOIN_PROPERTIES_KEY)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return JoinServiceConfig.from(p);
    }

    private V1PodSpec pod(String daemonSet) {
        return ClusterServices.find(rendered, V1DaemonSet.class, daemonSet).getSpec().getTemplate().getSpec();
    }

    private static String env(V1Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElseThrow().getValue();
    }

    private static V1Container container(V1PodSpec pod, String name) {
        return ClusterServices.container(pod.getContainers(), name);
    }

    private static boolean mounts(V1Container c, String volume) {
        return c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(volume));
    }
}
