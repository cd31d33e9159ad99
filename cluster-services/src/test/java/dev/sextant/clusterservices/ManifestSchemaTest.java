package dev.sextant.clusterservices;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.common.KubernetesObject;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The manifests against the Kubernetes OpenAPI schema (client-java's generated models, offline)")
class ManifestSchemaTest {

    @Test
    @DisplayName("every YAML file of the kustomize base validates as written")
    void everyBaseFileValidates() {
        for (String file : ClusterServices.baseFiles()) {
            assertDoesNotThrow(() -> OpenApiSchema.validateYaml(ClusterServices.resource(file)), file);
        }
    }

    @Test
    @DisplayName("every rendered object validates")
    void everyRenderedObjectValidates() {
        List<KubernetesObject> rendered = ClusterServices.render(TestServices.fixed());
        assertEquals(ClusterServices.baseFiles().size(), rendered.size());
        for (KubernetesObject o : rendered) {
            assertDoesNotThrow(() -> OpenApiSchema.validate(o), o.getKind() + " " + o.getMetadata().getName());
        }
    }

    @Test
    @DisplayName("the kustomization lists exactly the YAML files in the base directory, so apply -k applies them all")
    void kustomizationListsEveryFile() throws IOException, URISyntaxException {
        Path base = Path.of(Objects.requireNonNull(getClass().getClassLoader().getResource(ClusterServices.BASE)).toURI());
        try (Stream<Path> files = Files.list(base)) {
            TreeSet<String> present = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml"))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(present, new TreeSet<>(ClusterServices.baseFiles()));
        }
    }

    @Test
    @DisplayName("a DaemonSet with a field the schema does not define is rejected, naming the field")
    void unknownFieldIsRejected() {
        String wrong = ClusterServices.resource("join-service-daemonset.yaml")
                .replace("      serviceAccountName: sextant-join-service", "      serviceAccountName: sextant-join-service\n      hostNetwrok: true");
        IOException e = assertThrows(IOException.class, () -> OpenApiSchema.validateYaml(wrong));
        assertTrue(e.getMessage().contains("hostNetwrok"), e.getMessage());
    }

    @Test
    @DisplayName("a container without its required name is rejected")
    void missingContainerNameIsRejected() {
        String wrong = ClusterServices.resource("join-service-daemonset.yaml").replace("        - name: kms\n          image:", "        - image:");
        IOException e = assertThrows(IOException.class, () -> OpenApiSchema.validateYaml(wrong));
        assertTrue(e.getMessage().contains("name"), e.getMessage());
    }

    @Test
    @DisplayName("a nodePort on the Service spec instead of on its port is rejected")
    void misplacedFieldIsRejected() {
        String wrong = ClusterServices.resource("join-service.yaml").replace("  type: NodePort", "  type: NodePort\n  nodePort: 30090");
        assertThrows(IOException.class, () -> OpenApiSchema.validateYaml(wrong));
    }

    @Test
    @DisplayName("kubectl's kustomize builds the base into the same ten objects (when kubectl is installed)")
    void kubectlKustomizeBuildsTheBase() throws Exception {
        Path base = Path.of("src/main/resources/manifests/base");
        Process p;
        try {
            p = new ProcessBuilder("kubectl", "kustomize", base.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort("kubectl is not installed: " + e.getMessage());
            return;
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> kinds = out.lines().filter(l -> l.startsWith("kind: ")).map(l -> l.substring(6)).sorted().toList();
        List<String> rendered = ClusterServices.render(TestServices.fixed()).stream().map(KubernetesObject::getKind).sorted().toList();
        assertEquals(rendered, kinds);
    }
}
