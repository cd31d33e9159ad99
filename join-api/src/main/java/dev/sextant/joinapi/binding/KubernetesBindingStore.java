package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.kube.ApiFailures;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.Optional;

/**
 * Bindings kept as ConfigMaps {@code sextant-<kind>-<key>} labelled {@code sextant.dev/binding} in
 * the Kubernetes API, so they survive restarts and are shared by all join-service replicas. First
 * bind wins: the API server's create is atomic per name and answers 409 to the loser, which then
 * reads the winner's binding.
 */
@Singleton
@Requires(property = JoinServiceConfig.KUBERNETES_ENABLED, notEquals = "false")
public class KubernetesBindingStore implements BindingStore {
    static final String LABEL = "sextant.dev/binding";
    private static final int ATTEMPTS = 3;

    private final CoreV1Api api;
    private final String namespace;

    @Inject
    public KubernetesBindingStore(CoreV1Api api, JoinServiceConfig config) {
        this(api, config.kubernetes().namespace());
    }

    public KubernetesBindingStore(CoreV1Api api, String namespace) {
        this.api = api;
        this.namespace = namespace;
    }

    @Override
    public String bind(Kind kind, String key, String value) throws Refusal {
        String name = objectName(kind, key);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                api.createNamespacedConfigMap(namespace, bindingObject(kind, name, key, value)).execute();
                return value;
            } catch (ApiException e) {
                if (e.getCode() != 409) {
                    throw ApiFailures.refusal("creating binding " + name, e);
                }
            }
            Optional<String> bound = lookup(kind, key);
            if (bound.isPresent()) {
                return bound.get();
            }
            // Deleted between our 409 and our read (an operator cleaning up): try to create again.
        }
        throw new Refusal(JoinRefusal.KUBERNETES_UNAVAILABLE, "binding " + name + " keeps changing; retry later");
    }

    @Override
    public Optional<String> lookup(Kind kind, String key) throws Refusal {
        String name = objectName(kind, key);
        try {
            V1ConfigMap map = api.readNamespacedConfigMap(name, namespace).execute();
            Map<String, String> data = map.getData();
            String value = data == null ? null : data.get(kind.valueName());
            if (value == null || value.isBlank()) {
                throw new Refusal(JoinRefusal.INTERNAL, "binding " + name + " has no " + kind.valueName());
            }
            return Optional.of(value);
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return Optional.empty();
            }
            throw ApiFailures.refusal("reading binding " + name, e);
        }
    }

    static String objectName(Kind kind, String key) {
        return "sextant-" + kind.label() + "-" + key;
    }

    private V1ConfigMap bindingObject(Kind kind, String name, String key, String value) {
        // apiVersion/kind must be set explicitly: client-java models leave them empty (java-stack.md §4).
        return new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                .metadata(new V1ObjectMeta().name(name).namespace(namespace).putLabelsItem(LABEL, kind.label()))
                .putDataItem("subject", key)
                .putDataItem(kind.valueName(), value);
    }
}
