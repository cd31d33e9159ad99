package dev.sextant.nodeboot.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.clusterservices.KubeApiDouble;
import dev.sextant.proto.v1.SignedMeasurements;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Cluster services on a control plane where Kubernetes runs")
class KubernetesServicesTest {
    @TempDir
    Path dir;

    private final KubeApiDouble api = new KubeApiDouble();
    private final KubernetesServices services =
            new KubernetesServices(new KubernetesServicesSettings("sextant/join-service@sha256:" + "a".repeat(64), "sextant/kms@sha256:" + "b".repeat(64), 30090));

    @AfterEach
    void close() {
        api.close();
    }

    private ServicesInput input(SignedMeasurements measurements) throws Exception {
        return new ServicesInput(new byte[32], new byte[32], new byte[32], measurements,
                "-----BEGIN CERTIFICATE-----\n(ek ca)\n-----END CERTIFICATE-----\n", "10.0.0.1:6443",
                Files.readAllBytes(api.kubeconfig(dir)), new dev.sextant.clusterservices.InitNodeBinding("000b" + "ab".repeat(32),
                "control-plane-0", java.util.List.of("c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4")), "control-plane-0", 3);
    }

    @Test
    @DisplayName("are applied through the API with the kubeconfig Kubernetes just wrote: one DaemonSet whose pod runs the join service and the KMS with the given images")
    void appliedAsDaemonSets() throws Exception {
        SignedMeasurements signed = SignedMeasurements.newBuilder().setJson(ByteString.copyFromUtf8("{}"))
                .setSignature(ByteString.copyFromUtf8("c2lnbmF0dXJl\n")).setPublicKeyPem("-----BEGIN PUBLIC KEY-----\n").build();
        DeployedServices deployed = services.deploy(input(signed));
        String line = deployed.summary();
        assertEquals(EtcdStanding.NONE, deployed.etcd(), "Kubernetes mode runs no etcd member of the node's own");
        assertTrue(line.contains("applied through the Kubernetes API") && line.contains("NodePort 30090"), line);
        List<V1DaemonSet> daemonSets = new AppsV1Api(api.client()).listNamespacedDaemonSet("kube-system").execute().getItems();
        assertEquals(List.of("sextant/join-service@sha256:" + "a".repeat(64), "sextant/kms@sha256:" + "b".repeat(64)), daemonSets.stream()
                .flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().stream()).map(c -> c.getImage()).sorted().toList());
    }

    @Test
    @DisplayName("refuse unsigned measurements with a reason, before touching the API")
    void unsignedMeasurements() throws Exception {
        SignedMeasurements unsigned = SignedMeasurements.newBuilder().setJson(ByteString.copyFromUtf8("{}")).build();
        ClusterServicesException e = assertThrows(ClusterServicesException.class, () -> services.deploy(input(unsigned)));
        assertTrue(e.getMessage().contains("measurementsSignature"), e.getMessage());
        assertEquals(0, api.writes());
    }
}
