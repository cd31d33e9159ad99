package dev.sextant.clusterservices.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.clusterservices.ClusterServices;
import dev.sextant.clusterservices.TestServices;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1NodeSelectorRequirement;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Toleration;
import io.kubernetes.client.openapi.models.V1Volume;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The join service's container is privileged, because plain k3s has no device plugin for the TPM
 * it attests itself with (nodes verify the join service). Privilege makes where the pod
 * runs and what it can reach part of the trust: each row is a way the pod could be turned against
 * the host or the cluster, and the part of the rendered manifests that refuses it. Checked on the
 * rendered objects; no k3s runs in this suite (K3sClusterServicesTest applies them when an image is
 * given).
 */
@DisplayName("Attacks through the join service's pod")
class JoinServicePodAttacksTest {
    private final List<KubernetesObject> rendered = ClusterServices.render(TestServices.fixed());
    private final V1PodSpec pod = rendered.stream()
            .filter(V1DaemonSet.class::isInstance).map(V1DaemonSet.class::cast)
            .filter(d -> d.getMetadata().getName().equals(ClusterServices.JOIN_DAEMONSET)).findFirst().orElseThrow()
            .getSpec().getTemplate().getSpec();

    @Test
    @DisplayName("the privileged join service scheduled on a worker (a node that is no bootstrapped control plane): refused by a required control-plane node affinity, with no nodeName or nodeSelector to bypass it")
    void scheduledOffControlPlanes() {
        List<V1NodeSelectorRequirement> terms = pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().stream().flatMap(t -> t.getMatchExpressions().stream()).toList();
        assertEquals(1, pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().size(),
                "one term: terms are ORed, a second would admit other nodes");
        assertEquals(List.of("node-role.kubernetes.io/control-plane"), terms.stream().map(V1NodeSelectorRequirement::getKey).toList());
        assertEquals("Exists", terms.get(0).getOperator());
        assertNull(pod.getNodeName());
        assertTrue(pod.getNodeSelector() == null || pod.getNodeSelector().isEmpty());
        for (V1Toleration t : pod.getTolerations()) {
            // A toleration without a key (operator Exists) tolerates every taint.
            assertTrue(t.getKey() != null
                            && List.of("node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master").contains(t.getKey()),
                    "tolerates control-plane taints only, not " + t);
        }
    }

    @Test
    @DisplayName("the privileged join service reading the host (its disks, its root, the kubelet's files): refused, the only host path is the TPM character device")
    void extraHostMounts() {
        List<V1Volume> host = pod.getVolumes().stream().filter(v -> v.getHostPath() != null).toList();
        assertEquals(1, host.size(), "one host path");
        assertEquals("/dev/tpmrm0", host.get(0).getHostPath().getPath());
        assertEquals("CharDevice", host.get(0).getHostPath().getType(), "a missing TPM fails the pod, nothing is created");
        assertTrue(pod.getHostNetwork() == null || !pod.getHostNetwork(), "no host network");
        assertTrue(pod.getHostPID() == null || !pod.getHostPID(), "no host PID namespace");
        assertTrue(pod.getHostIPC() == null || !pod.getHostIPC(), "no host IPC namespace");
    }

    @Test
    @DisplayName("the privileged container running as root (every capability, every device): refused, the pod runs as a non-root uid whose only extra group is the TPM's, and no container overrides it")
    void privilegedAsRoot() {
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        assertTrue(pod.getSecurityContext().getRunAsUser() > 0);
        assertEquals(List.of(10002L), pod.getSecurityContext().getSupplementalGroups());
        for (V1Container c : pod.getContainers()) {
            assertNull(c.getSecurityContext().getRunAsUser(), c.getName());
            assertNull(c.getSecurityContext().getRunAsNonRoot(), c.getName());
            assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem(), c.getName());
            assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop(), c.getName());
            List<String> added = c.getSecurityContext().getCapabilities().getAdd();
            assertTrue(added == null || added.isEmpty(), c.getName());
        }
    }

    @Test
    @DisplayName("the KMS, which holds the master secret, reaching the TPM or host devices through its pod: refused, only the join service container is privileged and mounts the TPM")
    void kmsStaysUnprivileged() {
        V1Container kms = ClusterServices.container(pod.getContainers(), ClusterServices.KMS_CONTAINER);
        assertFalse(Boolean.TRUE.equals(kms.getSecurityContext().getPrivileged()));
        assertFalse(kms.getSecurityContext().getAllowPrivilegeEscalation());
        String tpmVolume = pod.getVolumes().stream().filter(v -> v.getHostPath() != null).findFirst().orElseThrow().getName();
        assertTrue(kms.getVolumeMounts().stream().noneMatch(m -> m.getName().equals(tpmVolume)));
    }

    @Test
    @DisplayName("the KMS container reaching the join service's etcd client key (and through etcd every binding and Kubernetes' whole state): refused, only the join container mounts the Secret, and the KMS has no other volume that holds it")
    void kmsReachingEtcdClientKey() {
        String etcdVolume = pod.getVolumes().stream().filter(v -> v.getSecret() != null
                && ClusterServices.ETCD_CLIENT_SECRET.equals(v.getSecret().getSecretName())).findFirst().orElseThrow().getName();
        V1Container kms = ClusterServices.container(pod.getContainers(), ClusterServices.KMS_CONTAINER);
        V1Container join = ClusterServices.container(pod.getContainers(), ClusterServices.JOIN_CONTAINER);
        assertTrue(kms.getVolumeMounts().stream().noneMatch(m -> m.getName().equals(etcdVolume)), "the KMS does not mount it");
        assertTrue(join.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(etcdVolume)), "the join service does");
        assertTrue(kms.getEnvFrom() == null || kms.getEnvFrom().isEmpty(), "no Secret as environment either");
        assertTrue(kms.getEnv().stream().noneMatch(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null));
        assertTrue(pod.getVolumes().stream().filter(v -> v.getProjected() != null).flatMap(v -> v.getProjected().getSources().stream())
                .noneMatch(source -> source.getSecret() != null), "no projected volume carries a Secret");
    }

    @Test
    @DisplayName("the join service's pod on the host network (the NetworkPolicy bypassed) to reach etcd on 127.0.0.1: refused, it reaches the member at the node's address")
    void hostNetworkForEtcd() throws IOException {
        assertTrue(pod.getHostNetwork() == null || !pod.getHostNetwork());
        assertEquals(List.of("https://${SEXTANT_NODE_IP}:2379"), renderedJoinProperties().etcd().endpoints());
    }

    @Test
    @DisplayName("a join service without a TPM (no quote in its handshake, so every joining node would refuse it, or be configured to skip verification): refused, its rendered configuration names the host's TPM")
    void joinServiceWithoutTpm() throws IOException {
        JoinServiceConfig.Atls atls = renderedJoinProperties().atls();
        assertEquals(Optional.of("device:/dev/tpmrm0"), atls.serverTpm());
        assertTrue(atls.enabled());
    }

    @Test
    @DisplayName("another pod, a process in the pod's network namespace or kubectl port-forward calling the KMS: refused, the KMS has no "
            + "TCP port but its management port (no containerPort, Service or NetworkPolicy port for keys); its socket is in a memory "
            + "emptyDir only the KMS and the join service mount, and it answers the pod's uid only, the join service's")
    void kmsReachableOverItsSocketOnly() throws IOException {
        V1Container kms = ClusterServices.container(pod.getContainers(), ClusterServices.KMS_CONTAINER);
        assertEquals(List.of("kms-management"), kms.getPorts().stream().map(V1ContainerPort::getName).toList(), "no gRPC port");
        Map<String, String> env = kms.getEnv().stream().collect(Collectors.toMap(V1EnvVar::getName, e -> String.valueOf(e.getValue())));
        Path socket = Path.of(env.get("SEXTANT_KMS_SOCKET"));
        assertEquals(socket, renderedJoinProperties().kms().socket(), "the join service dials the KMS's socket");
        assertEquals(String.valueOf(pod.getSecurityContext().getRunAsUser()), env.get("SEXTANT_KMS_PEER_UIDS"),
                "the KMS answers the pod's uid, which no container overrides (privilegedAsRoot)");

        V1VolumeMount kmsMount = kms.getVolumeMounts().stream().filter(m -> socket.startsWith(m.getMountPath())).findFirst().orElseThrow();
        V1Volume volume = pod.getVolumes().stream().filter(v -> v.getName().equals(kmsMount.getName())).findFirst().orElseThrow();
        assertNotNull(volume.getEmptyDir(), "an emptyDir of the pod, nothing of the host");
        assertEquals("Memory", volume.getEmptyDir().getMedium());
        List<String> mountedBy = Stream.concat(pod.getContainers().stream(),
                        pod.getInitContainers() == null ? Stream.empty() : pod.getInitContainers().stream())
                .filter(c -> c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(volume.getName())))
                .map(V1Container::getName).sorted().toList();
        assertEquals(List.of(ClusterServices.JOIN_CONTAINER, ClusterServices.KMS_CONTAINER), mountedBy);

        for (KubernetesObject o : rendered) {
            if (o instanceof V1Service service) {
                assertEquals(List.of(9090), service.getSpec().getPorts().stream().map(V1ServicePort::getPort).toList(),
                        service.getMetadata().getName() + " exposes the join service only");
            }
            if (o instanceof V1NetworkPolicy policy) {
                assertEquals(List.of(9090), policy.getSpec().getIngress().stream().flatMap(r -> r.getPorts().stream())
                        .map(p -> p.getPort().getIntValue()).toList(), policy.getMetadata().getName() + " admits the join service only");
            }
        }
    }

    /** join.properties from the rendered join-config ConfigMap, bound as the join service binds it in its pod. */
    private JoinServiceConfig renderedJoinProperties() throws IOException {
        V1ConfigMap joinConfig = rendered.stream().filter(V1ConfigMap.class::isInstance).map(V1ConfigMap.class::cast)
                .filter(c -> c.getMetadata().getName().equals(ClusterServices.JOIN_CONFIG)).findFirst().orElseThrow();
        Properties properties = new Properties();
        properties.load(new StringReader(joinConfig.getData().get(ClusterServices.JOIN_PROPERTIES_KEY)));
        return JoinServiceConfig.from(properties);
    }
}
