package dev.sextant.joinapi.binding;

import dev.sextant.joinapi.Hex;
import dev.sextant.joinapi.Refusal;
import dev.sextant.joinapi.kube.ApiFailures;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * Bindings kept as ConfigMaps labelled {@code sextant.dev/binding} in the Kubernetes API, so they
 * survive restarts and are shared by all join-service replicas. First claim wins: the API server's create is atomic per name and answers
 * 409 to the loser, which then reads the winner's binding. Bindings are never deleted by this
 * service: a claim is not a key release, and removing one after a later failure could let another
 * machine take a UUID whose owner is retrying concurrently.
 */
@Singleton
@Requires(property = "sextant.join.kubernetes.enabled", notEquals = "false")
public class KubernetesBindingStore implements BindingStore {
    static final String LABEL = "sextant.dev/binding";
    private static final int ATTEMPTS = 3;

    private final CoreV1Api api;
    private final String namespace;

    public KubernetesBindingStore(CoreV1Api api, @Value("${sextant.join.kubernetes.namespace:kube-system}") String namespace) {
        this.api = api;
        this.namespace = namespace;
    }

    /**
     * Binds {@code subject} to {@code akName} unless it is already bound.
     *
     * @return true if the subject is (now or already) bound to this AK, false if another AK holds it
     */
    @Override
    public boolean claim(Kind kind, String subject, byte[] akName) throws Refusal {
        String name = objectName(kind, subject);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                api.createNamespacedConfigMap(namespace, bindingObject(kind, name, subject, akName)).execute();
                return true;
            } catch (ApiException e) {
                if (e.getCode() != 409) {
                    throw ApiFailures.refusal("creating binding " + name, e);
                }
            }
            Optional<byte[]> owner = owner(kind, subject);
            if (owner.isPresent()) {
                return Hex.same(owner.get(), akName);
            }
            // Deleted between our 409 and our read (an operator cleaning up): try to create again.
        }
        throw new Refusal(Refusal.Reason.KUBERNETES_UNAVAILABLE, "binding " + name + " keeps changing; retry later");
    }

    /** The AK name the subject is bound to, if any. */
    @Override
    public Optional<byte[]> owner(Kind kind, String subject) throws Refusal {
        String name = objectName(kind, subject);
        try {
            V1ConfigMap map = api.readNamespacedConfigMap(name, namespace).execute();
            Map<String, String> data = map.getData();
            String hex = data == null ? null : data.get("akName");
            if (hex == null) {
                throw new Refusal(Refusal.Reason.INTERNAL, "binding " + name + " has no akName");
            }
            return Optional.of(HexFormat.of().parseHex(hex));
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return Optional.empty();
            }
            throw ApiFailures.refusal("reading binding " + name, e);
        } catch (IllegalArgumentException e) {
            throw new Refusal(Refusal.Reason.INTERNAL, "binding " + name + " holds a malformed akName", e);
        }
    }

    private static String objectName(Kind kind, String subject) {
        return (kind == Kind.DISK ? "sextant-disk-" : "sextant-node-") + subject;
    }

    private V1ConfigMap bindingObject(Kind kind, String name, String subject, byte[] akName) {
        // apiVersion/kind must be set explicitly: client-java models leave them empty (java-stack.md §4).
        return new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                .metadata(new V1ObjectMeta().name(name).namespace(namespace).putLabelsItem(LABEL, kind.name().toLowerCase(java.util.Locale.ROOT)))
                .putDataItem("subject", subject)
                .putDataItem("akName", HexFormat.of().formatHex(akName));
    }
}
