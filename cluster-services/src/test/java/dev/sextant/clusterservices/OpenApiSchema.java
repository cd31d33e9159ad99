package dev.sextant.clusterservices;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import java.io.IOException;
import java.util.Map;

/**
 * Offline validation against the Kubernetes OpenAPI schema, through client-java's models: they are
 * generated from the API server's OpenAPI spec (client-java 27 = Kubernetes 1.35), and each model's
 * {@code validateJsonElement} rejects fields the spec does not define and required fields that are
 * missing, recursively. No network and no schema download at test time; the price is that only
 * what the generator emits is checked (names and required fields, JSON types of scalars), not
 * formats or value ranges, which the API server checks on apply.
 */
final class OpenApiSchema {
    @FunctionalInterface
    private interface Validator {
        void validate(JsonElement json) throws IOException;
    }

    private static final Map<String, Validator> BY_KIND = Map.of(
            "v1/ServiceAccount", V1ServiceAccount::validateJsonElement,
            "v1/Secret", V1Secret::validateJsonElement,
            "v1/ConfigMap", V1ConfigMap::validateJsonElement,
            "v1/Service", V1Service::validateJsonElement,
            "rbac.authorization.k8s.io/v1/Role", V1Role::validateJsonElement,
            "rbac.authorization.k8s.io/v1/RoleBinding", V1RoleBinding::validateJsonElement,
            "rbac.authorization.k8s.io/v1/ClusterRole", V1ClusterRole::validateJsonElement,
            "rbac.authorization.k8s.io/v1/ClusterRoleBinding", V1ClusterRoleBinding::validateJsonElement,
            "apps/v1/DaemonSet", V1DaemonSet::validateJsonElement,
            "networking.k8s.io/v1/NetworkPolicy", V1NetworkPolicy::validateJsonElement);

    private OpenApiSchema() {}

    /** One YAML document, as written (before any typed loading could drop unknown fields). */
    static void validateYaml(String yaml) throws IOException {
        Map<String, Object> tree = new org.yaml.snakeyaml.Yaml().load(yaml);
        validate(new Gson().toJsonTree(tree));
    }

    /** A typed object as it would be sent to the API server. */
    static void validate(KubernetesObject object) throws IOException {
        validate(com.google.gson.JsonParser.parseString(new JSON().serialize(object)));
    }

    private static void validate(JsonElement json) throws IOException {
        String kind = json.getAsJsonObject().get("apiVersion").getAsString() + "/" + json.getAsJsonObject().get("kind").getAsString();
        Validator validator = BY_KIND.get(kind);
        if (validator == null) {
            throw new IOException("no schema for " + kind + " (the cluster services hold no such kind)");
        }
        try {
            validator.validate(json);
        } catch (IllegalArgumentException e) {
            // The generated validators signal schema violations this way.
            throw new IOException(kind + ": " + e.getMessage(), e);
        }
    }
}
