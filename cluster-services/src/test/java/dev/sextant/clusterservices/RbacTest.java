package dev.sextant.clusterservices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RBAC: the join service may do what join-api does, nothing more; the KMS may do nothing")
class RbacTest {
    private static final Path JOIN_API_SOURCES = Path.of("../join-api/src/main/java");
    /** client-java's CoreV1Api method verbs → Kubernetes RBAC verbs. */
    private static final Map<String, String> VERBS = Map.of("create", "create", "read", "get", "list", "list",
            "replace", "update", "patch", "patch", "delete", "delete");
    private static final Pattern CALL = Pattern.compile("\\b\\w+\\.(create|read|list|replace|patch|delete)Namespaced(\\w+?)\\(");
    /** The same for the cluster-scoped kinds a join service could touch (named: "read" alone would match Files.readString). */
    private static final Pattern CLUSTER_CALL = Pattern.compile(
            "\\b\\w+\\.(create|read|list|replace|patch|delete)(Node|Namespace|PersistentVolume|ClusterRole|ClusterRoleBinding)\\(");

    private final java.util.List<KubernetesObject> rendered = ClusterServices.render(TestServices.fixed());

    @Test
    @DisplayName("the Roles and the ClusterRole grant exactly the verbs on exactly the resources join-api's code calls")
    void roleMatchesTheCallsInJoinApi() throws IOException {
        assumeTrue(Files.isDirectory(JOIN_API_SOURCES), "join-api sources not beside this module");
        Map<String, Set<String>> used = new TreeMap<>();
        try (Stream<Path> files = Files.walk(JOIN_API_SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String source = Files.readString(f);
                for (Pattern call : List.of(CALL, CLUSTER_CALL)) {
                    Matcher m = call.matcher(source);
                    while (m.find()) {
                        String resource = m.group(2).toLowerCase(Locale.ROOT) + "s";
                        used.computeIfAbsent(resource, r -> new TreeSet<>()).add(VERBS.get(m.group(1)));
                    }
                }
            }
        }
        assertEquals(Map.of("secrets", Set.of("create", "list", "delete"), "leases", Set.of("get"), "nodes", Set.of("get", "patch")), used,
                "join-api's Kubernetes calls changed: update join-service-role.yaml and this expectation together");
        assertEquals(used, granted());
    }

    @Test
    @DisplayName("the Role is namespaced to kube-system and bound only to the join service's account")
    void roleIsBoundToTheJoinServiceOnly() {
        V1Role role = ClusterServices.find(rendered, V1Role.class, "sextant-join-service");
        assertEquals("kube-system", role.getMetadata().getNamespace());
        V1RoleBinding binding = ClusterServices.find(rendered, V1RoleBinding.class, "sextant-join-service");
        assertEquals("sextant-join-service", binding.getRoleRef().getName());
        assertEquals(1, binding.getSubjects().size());
        assertEquals("sextant-join-service", binding.getSubjects().get(0).getName());
        assertEquals(List.of("sextant-join-service"), rendered.stream().filter(V1ServiceAccount.class::isInstance)
                .map(o -> o.getMetadata().getName()).toList(), "the KMS has no account of its own and gets no token (RenderingTest)");
    }

    @Test
    @DisplayName("reading nodes' leases (to delete a joined node's bootstrap token) is granted in kube-node-lease only, read-only, to the join service only")
    void leaseReaderIsNarrow() {
        V1Role role = ClusterServices.find(rendered, V1Role.class, "sextant-join-service-node-leases");
        assertEquals("kube-node-lease", role.getMetadata().getNamespace());
        assertEquals(1, role.getRules().size());
        assertEquals(List.of("get"), role.getRules().get(0).getVerbs());
        V1RoleBinding binding = ClusterServices.find(rendered, V1RoleBinding.class, "sextant-join-service-node-leases");
        assertEquals("kube-node-lease", binding.getMetadata().getNamespace());
        assertEquals("sextant-join-service-node-leases", binding.getRoleRef().getName());
        assertEquals(1, binding.getSubjects().size());
        assertEquals("sextant-join-service", binding.getSubjects().get(0).getName());
        assertEquals("kube-system", binding.getSubjects().get(0).getNamespace());
    }

    @Test
    @DisplayName("cordoning and tainting revoked Nodes is granted cluster-wide (Nodes have no namespace) as get and patch on nodes only, to the join service only")
    void nodeCordonerIsNarrow() {
        V1ClusterRole role = ClusterServices.find(rendered, V1ClusterRole.class, "sextant-join-service-nodes");
        assertEquals(1, role.getRules().size());
        assertEquals(List.of("nodes"), role.getRules().get(0).getResources());
        assertEquals(List.of("get", "patch"), role.getRules().get(0).getVerbs());
        V1ClusterRoleBinding binding = ClusterServices.find(rendered, V1ClusterRoleBinding.class, "sextant-join-service-nodes");
        assertEquals("ClusterRole", binding.getRoleRef().getKind());
        assertEquals("sextant-join-service-nodes", binding.getRoleRef().getName());
        assertEquals(1, binding.getSubjects().size());
        assertEquals("sextant-join-service", binding.getSubjects().get(0).getName());
        assertEquals("kube-system", binding.getSubjects().get(0).getNamespace());
        assertEquals(List.of("sextant-join-service-nodes"), rendered.stream().filter(V1ClusterRoleBinding.class::isInstance)
                .map(o -> o.getMetadata().getName()).toList(), "no other cluster-wide grant");
    }

    /** What every Role of the join service grants, by resource (each bound to its account, as the tests above check). */
    private Map<String, Set<String>> granted() {
        Map<String, Set<String>> granted = new TreeMap<>();
        Stream<V1PolicyRule> rules = Stream.concat(
                rendered.stream().filter(V1Role.class::isInstance).map(V1Role.class::cast).flatMap(r -> r.getRules().stream()),
                rendered.stream().filter(V1ClusterRole.class::isInstance).map(V1ClusterRole.class::cast).flatMap(r -> r.getRules().stream()));
        rules.forEach(rule -> {
            assertEquals(rule.getResources().equals(List.of("leases")) ? List.of("coordination.k8s.io") : List.of(""), rule.getApiGroups());
            assertTrue(rule.getResourceNames() == null || rule.getResourceNames().isEmpty(), "no name restriction to hide a broader grant");
            rule.getResources().forEach(r -> granted.computeIfAbsent(r, x -> new TreeSet<>()).addAll(rule.getVerbs()));
        });
        return granted;
    }
}
