package dev.sextant.clusterservices;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.NetworkingV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Create-or-update of rendered objects through the Kubernetes API. An object that exists is compared
 * field by field with what was rendered; only fields the rendering sets count, so the defaults the
 * API server fills in (and the status) never make an unchanged object look changed. Re-applying the
 * same rendering therefore writes nothing. A changed object is replaced at the resourceVersion that
 * was read, so a concurrent writer turns into a retried conflict, not a lost update.
 */
public final class ClusterServicesApplier {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterServicesApplier.class);
    private static final int ATTEMPTS = 3;

    /** What happened to one object. */
    public enum Action { CREATED, UPDATED, UNCHANGED }

    public record Applied(String kind, String name, Action action) {}

    /** One entry per object, in the order applied. */
    public record ApplyResult(List<Applied> objects) {
        public long count(Action action) {
            return objects.stream().filter(o -> o.action() == action).count();
        }
    }

    @FunctionalInterface
    private interface Read {
        KubernetesObject read(ApiClient client, String namespace, String name) throws ApiException;
    }

    @FunctionalInterface
    private interface Create {
        void create(ApiClient client, String namespace, KubernetesObject object) throws ApiException;
    }

    @FunctionalInterface
    private interface Replace {
        void replace(ApiClient client, String namespace, String name, KubernetesObject object) throws ApiException;
    }

    /** Read, create and replace for one kind, through client-java's typed API classes. */
    private record Ops(Read read, Create create, Replace replace) {}

    private static Ops ops(KubernetesObject o) {
        if (o instanceof V1ServiceAccount) {
            return new Ops((c, ns, n) -> new CoreV1Api(c).readNamespacedServiceAccount(n, ns).execute(),
                    (c, ns, x) -> new CoreV1Api(c).createNamespacedServiceAccount(ns, (V1ServiceAccount) x).execute(),
                    (c, ns, n, x) -> new CoreV1Api(c).replaceNamespacedServiceAccount(n, ns, (V1ServiceAccount) x).execute());
        }
        if (o instanceof V1Secret) {
            return new Ops((c, ns, n) -> new CoreV1Api(c).readNamespacedSecret(n, ns).execute(),
                    (c, ns, x) -> new CoreV1Api(c).createNamespacedSecret(ns, (V1Secret) x).execute(),
                    (c, ns, n, x) -> new CoreV1Api(c).replaceNamespacedSecret(n, ns, (V1Secret) x).execute());
        }
        if (o instanceof V1ConfigMap) {
            return new Ops((c, ns, n) -> new CoreV1Api(c).readNamespacedConfigMap(n, ns).execute(),
                    (c, ns, x) -> new CoreV1Api(c).createNamespacedConfigMap(ns, (V1ConfigMap) x).execute(),
                    (c, ns, n, x) -> new CoreV1Api(c).replaceNamespacedConfigMap(n, ns, (V1ConfigMap) x).execute());
        }
        if (o instanceof V1Service) {
            return new Ops((c, ns, n) -> new CoreV1Api(c).readNamespacedService(n, ns).execute(),
                    (c, ns, x) -> new CoreV1Api(c).createNamespacedService(ns, (V1Service) x).execute(),
                    (c, ns, n, x) -> new CoreV1Api(c).replaceNamespacedService(n, ns, (V1Service) x).execute());
        }
        if (o instanceof V1Role) {
            return new Ops((c, ns, n) -> new RbacAuthorizationV1Api(c).readNamespacedRole(n, ns).execute(),
                    (c, ns, x) -> new RbacAuthorizationV1Api(c).createNamespacedRole(ns, (V1Role) x).execute(),
                    (c, ns, n, x) -> new RbacAuthorizationV1Api(c).replaceNamespacedRole(n, ns, (V1Role) x).execute());
        }
        if (o instanceof V1RoleBinding) {
            return new Ops((c, ns, n) -> new RbacAuthorizationV1Api(c).readNamespacedRoleBinding(n, ns).execute(),
                    (c, ns, x) -> new RbacAuthorizationV1Api(c).createNamespacedRoleBinding(ns, (V1RoleBinding) x).execute(),
                    (c, ns, n, x) -> new RbacAuthorizationV1Api(c).replaceNamespacedRoleBinding(n, ns, (V1RoleBinding) x).execute());
        }
        if (o instanceof V1ClusterRole) { // cluster-scoped: no namespace
            return new Ops((c, ns, n) -> new RbacAuthorizationV1Api(c).readClusterRole(n).execute(),
                    (c, ns, x) -> new RbacAuthorizationV1Api(c).createClusterRole((V1ClusterRole) x).execute(),
                    (c, ns, n, x) -> new RbacAuthorizationV1Api(c).replaceClusterRole(n, (V1ClusterRole) x).execute());
        }
        if (o instanceof V1ClusterRoleBinding) {
            return new Ops((c, ns, n) -> new RbacAuthorizationV1Api(c).readClusterRoleBinding(n).execute(),
                    (c, ns, x) -> new RbacAuthorizationV1Api(c).createClusterRoleBinding((V1ClusterRoleBinding) x).execute(),
                    (c, ns, n, x) -> new RbacAuthorizationV1Api(c).replaceClusterRoleBinding(n, (V1ClusterRoleBinding) x).execute());
        }
        if (o instanceof V1NetworkPolicy) {
            return new Ops((c, ns, n) -> new NetworkingV1Api(c).readNamespacedNetworkPolicy(n, ns).execute(),
                    (c, ns, x) -> new NetworkingV1Api(c).createNamespacedNetworkPolicy(ns, (V1NetworkPolicy) x).execute(),
                    (c, ns, n, x) -> new NetworkingV1Api(c).replaceNamespacedNetworkPolicy(n, ns, (V1NetworkPolicy) x).execute());
        }
        if (o instanceof V1DaemonSet) {
            return new Ops((c, ns, n) -> new AppsV1Api(c).readNamespacedDaemonSet(n, ns).execute(),
                    (c, ns, x) -> new AppsV1Api(c).createNamespacedDaemonSet(ns, (V1DaemonSet) x).execute(),
                    (c, ns, n, x) -> new AppsV1Api(c).replaceNamespacedDaemonSet(n, ns, (V1DaemonSet) x).execute());
        }
        throw new IllegalArgumentException("cannot apply a " + o.getClass().getSimpleName()
                + ": the cluster services hold no such kind");
    }

    private ClusterServicesApplier() {}

    /**
     * Creates what is missing and replaces what differs, in list order.
     *
     * @throws ApiException the first API failure, naming the object (objects before it stay applied;
     *                      applying again resumes, since unchanged objects are skipped)
     */
    public static ApplyResult apply(ApiClient client, List<KubernetesObject> objects) throws ApiException {
        List<Applied> applied = new ArrayList<>();
        for (KubernetesObject object : objects) {
            Action action = applyOne(client, object);
            // Kind and name only: Secret contents must never reach a log.
            LOG.info("{} {}/{}: {}", object.getKind(), object.getMetadata().getNamespace(), object.getMetadata().getName(),
                    action.name().toLowerCase(java.util.Locale.ROOT));
            applied.add(new Applied(object.getKind(), object.getMetadata().getName(), action));
        }
        return new ApplyResult(List.copyOf(applied));
    }

    private static Action applyOne(ApiClient client, KubernetesObject desired) throws ApiException {
        Ops ops = ops(desired);
        String namespace = desired.getMetadata().getNamespace();
        String name = desired.getMetadata().getName();
        String what = desired.getKind() + " " + namespace + "/" + name;
        for (int attempt = 1; ; attempt++) {
            KubernetesObject current;
            try {
                current = ops.read().read(client, namespace, name);
            } catch (ApiException e) {
                if (e.getCode() != 404) {
                    throw failure("reading " + what, e);
                }
                try {
                    ops.create().create(client, namespace, copy(client, desired));
                    return Action.CREATED;
                } catch (ApiException c) {
                    if (c.getCode() == 409 && attempt < ATTEMPTS) {
                        continue; // created by someone else meanwhile: compare with theirs
                    }
                    throw failure("creating " + what, c);
                }
            }
            if (covers(json(client, current), json(client, desired))) {
                return Action.UNCHANGED;
            }
            KubernetesObject replacement = copy(client, desired);
            replacement.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
            try {
                ops.replace().replace(client, namespace, name, replacement);
                return Action.UPDATED;
            } catch (ApiException e) {
                if (e.getCode() == 409 && attempt < ATTEMPTS) {
                    continue; // changed between our read and our write: read again
                }
                throw failure("updating " + what, e);
            }
        }
    }

    /**
     * True when every field the rendering sets has the same value in the live object (status and
     * server-managed metadata are not rendered, so they do not count). Lists must match in length
     * and element by element: an extra container is a difference.
     */
    static boolean covers(JsonElement live, JsonElement wanted) {
        if (wanted.isJsonObject()) {
            if (!live.isJsonObject()) {
                return false;
            }
            JsonObject l = live.getAsJsonObject();
            for (Map.Entry<String, JsonElement> e : wanted.getAsJsonObject().entrySet()) {
                if (e.getValue().isJsonNull() || isEmpty(e.getValue()) && !l.has(e.getKey())) {
                    continue; // the API server drops empty maps and lists; absent is the same as empty
                }
                if (!l.has(e.getKey()) || !covers(l.get(e.getKey()), e.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (wanted.isJsonArray()) {
            if (!live.isJsonArray() || live.getAsJsonArray().size() != wanted.getAsJsonArray().size()) {
                return false;
            }
            JsonArray l = live.getAsJsonArray();
            JsonArray w = wanted.getAsJsonArray();
            for (int i = 0; i < w.size(); i++) {
                if (!covers(l.get(i), w.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return wanted.equals(live);
    }

    private static boolean isEmpty(JsonElement e) {
        return e.isJsonObject() && e.getAsJsonObject().isEmpty() || e.isJsonArray() && e.getAsJsonArray().isEmpty();
    }

    private static JsonElement json(ApiClient client, Object o) {
        return JsonParser.parseString(client.getJSON().serialize(o));
    }

    /** A deep copy, so the caller's rendered objects are never modified by applying them. */
    @SuppressWarnings("unchecked")
    private static <T extends KubernetesObject> T copy(ApiClient client, T o) {
        return (T) client.getJSON().deserialize(client.getJSON().serialize(o), o.getClass());
    }

    /** The API's own message (a Status body) when there is one; never the request body. */
    private static ApiException failure(String doing, ApiException e) {
        String body = e.getResponseBody() == null || e.getResponseBody().isBlank() ? "" : ": " + e.getResponseBody();
        return new ApiException(doing + " failed with HTTP " + e.getCode() + body, e, e.getCode(), e.getResponseHeaders(),
                e.getResponseBody());
    }
}
