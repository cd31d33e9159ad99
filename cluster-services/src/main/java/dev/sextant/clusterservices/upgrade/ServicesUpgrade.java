package dev.sextant.clusterservices.upgrade;

import static dev.sextant.clusterservices.ClusterServices.JOIN_CONFIG;
import static dev.sextant.clusterservices.ClusterServices.JOIN_CONTAINER;
import static dev.sextant.clusterservices.ClusterServices.JOIN_DAEMONSET;
import static dev.sextant.clusterservices.ClusterServices.KMS_CONTAINER;
import static dev.sextant.clusterservices.ClusterServices.MEASUREMENTS_KEY;
import static dev.sextant.clusterservices.ClusterServices.MEASUREMENTS_PUBLIC_KEY_CONFIGMAP;
import static dev.sextant.clusterservices.ClusterServices.MEASUREMENTS_PUBLIC_KEY_KEY;
import static dev.sextant.clusterservices.ClusterServices.NAMESPACE;
import static dev.sextant.clusterservices.ClusterServices.SIGNATURE_KEY;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.clusterservices.ClusterServices;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sextant upgrade apply}: new images for the join service and the KMS (two containers of one
 * pod) and optionally new signed measurements in join-config (and, for a set signed by the next key the
 * set in force names, that key in the measurements key ConfigMap), then a wait for the DaemonSet's
 * rollout. When an update is refused or the rollout does not finish in time, the pod template and
 * measurements that were there before are put back and the outcome says where the rollout stopped
 * (Constellation's helm upgrade with automatic rollback).
 */
public final class ServicesUpgrade {
    private static final Logger LOG = LoggerFactory.getLogger(ServicesUpgrade.class);
    private static final int ATTEMPTS = 3;
    private static final List<String> DAEMONSETS = List.of(JOIN_DAEMONSET);

    private final ApiClient client;
    private final AppsV1Api apps;
    private final CoreV1Api core;
    private final Clock clock;
    private final RolloutSleeper sleeper;
    private final Duration pollInterval;

    public ServicesUpgrade(ApiClient client, Clock clock, RolloutSleeper sleeper, Duration pollInterval) {
        this.client = client;
        this.apps = new AppsV1Api(client);
        this.core = new CoreV1Api(client);
        this.clock = clock;
        this.sleeper = sleeper;
        this.pollInterval = pollInterval;
    }

    /**
     * @throws MeasurementsException the new measurements do not verify against the cluster's
     *                               measurements key (nor the next key the set in force names); nothing was changed
     * @throws ApiException          the current state could not be read; nothing was changed
     */
    public UpgradeOutcome upgrade(UpgradeRequest request) throws ApiException, MeasurementsException, InterruptedException {
        // Everything is read and checked before the first write.
        Map<String, V1PodTemplateSpec> previousTemplates = new LinkedHashMap<>();
        for (String name : DAEMONSETS) {
            previousTemplates.put(name, copy(readDaemonSet(name).getSpec().getTemplate()));
        }
        V1ConfigMap joinConfig = core.readNamespacedConfigMap(JOIN_CONFIG, NAMESPACE).execute();
        Map<String, String> previousMeasurements = joinConfig.getData() == null ? Map.of() : Map.copyOf(joinConfig.getData());
        String previousKey = null;
        Optional<String> nextKey = Optional.empty();
        if (request.measurements().isPresent()) {
            previousKey = measurementsPublicKey();
            nextKey = verifyingKey(request.measurements().get(), previousKey, previousMeasurements);
        }

        boolean measurementsWritten = false;
        boolean keyWritten = false;
        try {
            if (request.measurements().isPresent()) {
                SignedMeasurementsFile m = request.measurements().get();
                Map<String, String> data = new HashMap<>(previousMeasurements);
                data.put(MEASUREMENTS_KEY, new String(m.json(), StandardCharsets.UTF_8));
                data.put(SIGNATURE_KEY, new String(m.signature(), StandardCharsets.UTF_8));
                replaceJoinConfig(data);
                measurementsWritten = true;
                if (nextKey.isPresent()) {
                    keyWritten = true; // before the call: a write whose answer was lost is restored too
                    replaceMeasurementsKey(nextKey.get());
                }
            }
            updateTemplate(JOIN_DAEMONSET, t -> {
                ClusterServices.container(t.getSpec().getContainers(), JOIN_CONTAINER).setImage(request.joinServiceImage());
                ClusterServices.container(t.getSpec().getContainers(), KMS_CONTAINER).setImage(request.kmsImage());
            });
        } catch (ApiException e) {
            return rollBack("the update was refused (" + brief(e) + ")",
                    previousTemplates, measurementsWritten ? previousMeasurements : null, keyWritten ? previousKey : null);
        }
        String restoreKey = keyWritten ? previousKey : null;

        String applied = "join service " + request.joinServiceImage() + ", KMS " + request.kmsImage()
                + (request.measurements().isPresent() ? ", new measurements" : "")
                + (nextKey.isPresent() ? " signed by the next key their predecessor named (now in ConfigMap "
                + NAMESPACE + "/" + MEASUREMENTS_PUBLIC_KEY_CONFIGMAP + ")" : "");
        if (request.noWait()) {
            return new UpgradeOutcome(UpgradeOutcome.Result.APPLIED_NOT_WAITED,
                    "applied " + applied + "; rollout not awaited (--no-wait), so it will not be rolled back");
        }
        RolloutStatus stuck;
        try {
            stuck = awaitRollouts(request.timeout());
        } catch (ApiException e) {
            return rollBack("the rollout status could not be read (" + brief(e) + ")",
                    previousTemplates, measurementsWritten ? previousMeasurements : null, restoreKey);
        }
        if (stuck == null) {
            return new UpgradeOutcome(UpgradeOutcome.Result.SUCCEEDED, "upgraded: " + applied + "; the DaemonSet rolled out");
        }
        return rollBack("DaemonSet " + NAMESPACE + "/" + stuck.name() + " did not finish its rollout within "
                        + human(request.timeout()) + " (" + stuck.describe() + ")",
                previousTemplates, measurementsWritten ? previousMeasurements : null, restoreKey);
    }

    /** Null when every DaemonSet is rolled out; otherwise the first one that is not, at the deadline. */
    private RolloutStatus awaitRollouts(Duration timeout) throws ApiException, InterruptedException {
        Instant deadline = clock.instant().plus(timeout);
        while (true) {
            RolloutStatus pending = null;
            for (String name : DAEMONSETS) {
                RolloutStatus status = RolloutStatus.of(readDaemonSet(name));
                if (!status.complete()) {
                    pending = status;
                    break;
                }
            }
            if (pending == null) {
                return null;
            }
            if (!clock.instant().isBefore(deadline)) {
                return pending;
            }
            LOG.info("waiting for DaemonSet {}: {}", pending.name(), pending.describe());
            sleeper.sleep(pollInterval);
        }
    }

    private UpgradeOutcome rollBack(String why, Map<String, V1PodTemplateSpec> templates, Map<String, String> measurements,
                                    String measurementsKey) {
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, V1PodTemplateSpec> e : templates.entrySet()) {
            try {
                V1PodTemplateSpec previous = e.getValue();
                updateTemplate(e.getKey(), t -> t.setSpec(copy(previous).getSpec()));
            } catch (ApiException ex) {
                failures.add("DaemonSet " + e.getKey() + ": " + brief(ex));
            }
        }
        if (measurements != null) {
            try {
                replaceJoinConfig(measurements);
            } catch (ApiException ex) {
                failures.add("ConfigMap " + JOIN_CONFIG + ": " + brief(ex));
            }
        }
        if (measurementsKey != null) {
            try {
                replaceMeasurementsKey(measurementsKey);
            } catch (ApiException ex) {
                failures.add("ConfigMap " + MEASUREMENTS_PUBLIC_KEY_CONFIGMAP + ": " + brief(ex));
            }
        }
        String restored = "the previous images (join service " + image(templates.get(JOIN_DAEMONSET), JOIN_CONTAINER)
                + ", KMS " + image(templates.get(JOIN_DAEMONSET), KMS_CONTAINER) + ")"
                + (measurements != null ? " and measurements" : "") + (measurementsKey != null ? " and measurements key" : "");
        if (!failures.isEmpty()) {
            return new UpgradeOutcome(UpgradeOutcome.Result.ROLLBACK_FAILED,
                    why + "; restoring " + restored + " FAILED: " + String.join("; ", failures));
        }
        return new UpgradeOutcome(UpgradeOutcome.Result.ROLLED_BACK, why + "; rolled back to " + restored);
    }

    /**
     * Edits the pod template and writes it at the resourceVersion read (re-reading on a conflict).
     * An edit that changes nothing writes nothing.
     */
    private void updateTemplate(String name, Consumer<V1PodTemplateSpec> edit) throws ApiException {
        for (int attempt = 1; ; attempt++) {
            V1DaemonSet ds = readDaemonSet(name);
            V1PodTemplateSpec before = copy(ds.getSpec().getTemplate());
            edit.accept(ds.getSpec().getTemplate());
            if (json(before).equals(json(ds.getSpec().getTemplate()))) {
                return;
            }
            try {
                apps.replaceNamespacedDaemonSet(name, NAMESPACE, ds).execute();
                return;
            } catch (ApiException e) {
                if (e.getCode() != 409 || attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private void replaceJoinConfig(Map<String, String> data) throws ApiException {
        for (int attempt = 1; ; attempt++) {
            V1ConfigMap map = core.readNamespacedConfigMap(JOIN_CONFIG, NAMESPACE).execute();
            map.setData(new HashMap<>(data));
            try {
                core.replaceNamespacedConfigMap(JOIN_CONFIG, NAMESPACE, map).execute();
                return;
            } catch (ApiException e) {
                if (e.getCode() != 409 || attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * The key the new set is verified with: the cluster's measurements key (empty: it stays); or, when the
     * set in force verifies with that key and names a next key ({@code "nextKey"}, a key rotation), the next
     * key, which the measurements key ConfigMap then holds. The ConfigMap is no trust anchor (whoever writes
     * it can write join-config too): the join services refuse a set signed by any key but the one the
     * cluster pinned, and only a set signed by the pinned key moves the pin.
     */
    private static Optional<String> verifyingKey(SignedMeasurementsFile next, String clusterKey, Map<String, String> inForce)
            throws MeasurementsException {
        try {
            next.verify(clusterKey);
            return Optional.empty();
        } catch (MeasurementsException notByClusterKey) {
            Optional<MeasurementsKey> named = namedNextKey(inForce, clusterKey);
            if (named.isEmpty()) {
                throw notByClusterKey;
            }
            try {
                next.verify(named.get().pem());
            } catch (MeasurementsException e) {
                throw new MeasurementsException(notByClusterKey.getMessage() + "; nor by the next key "
                        + named.get().fingerprint() + " the measurements in force name", notByClusterKey);
            }
            return Optional.of(named.get().pem());
        }
    }

    private static Optional<MeasurementsKey> namedNextKey(Map<String, String> inForce, String clusterKey) {
        String json = inForce.get(MEASUREMENTS_KEY);
        String signature = inForce.get(SIGNATURE_KEY);
        if (json == null || signature == null) {
            return Optional.empty();
        }
        try {
            return MeasurementsFile.verifySet(json.getBytes(StandardCharsets.UTF_8), signature.getBytes(StandardCharsets.UTF_8),
                    clusterKey).nextKey();
        } catch (MeasurementsException e) {
            return Optional.empty(); // a set in force that does not verify names nothing
        }
    }

    private void replaceMeasurementsKey(String pem) throws ApiException {
        for (int attempt = 1; ; attempt++) {
            V1ConfigMap map = core.readNamespacedConfigMap(MEASUREMENTS_PUBLIC_KEY_CONFIGMAP, NAMESPACE).execute();
            Map<String, String> data = map.getData() == null ? new HashMap<>() : new HashMap<>(map.getData());
            data.put(MEASUREMENTS_PUBLIC_KEY_KEY, pem);
            map.setData(data);
            try {
                core.replaceNamespacedConfigMap(MEASUREMENTS_PUBLIC_KEY_CONFIGMAP, NAMESPACE, map).execute();
                return;
            } catch (ApiException e) {
                if (e.getCode() != 409 || attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private String measurementsPublicKey() throws ApiException, MeasurementsException {
        V1ConfigMap map = core.readNamespacedConfigMap(MEASUREMENTS_PUBLIC_KEY_CONFIGMAP, NAMESPACE).execute();
        String pem = map.getData() == null ? null : map.getData().get(MEASUREMENTS_PUBLIC_KEY_KEY);
        if (pem == null || pem.isBlank()) {
            throw new MeasurementsException("ConfigMap " + NAMESPACE + "/" + MEASUREMENTS_PUBLIC_KEY_CONFIGMAP
                    + " holds no " + MEASUREMENTS_PUBLIC_KEY_KEY + " to verify the new measurements with");
        }
        return pem;
    }

    private V1DaemonSet readDaemonSet(String name) throws ApiException {
        return apps.readNamespacedDaemonSet(name, NAMESPACE).execute();
    }

    private static String image(V1PodTemplateSpec template, String container) {
        return ClusterServices.container(template.getSpec().getContainers(), container).getImage();
    }

    private String json(Object o) {
        return client.getJSON().serialize(o);
    }

    private V1PodTemplateSpec copy(V1PodTemplateSpec t) {
        return client.getJSON().deserialize(json(t), V1PodTemplateSpec.class);
    }

    /** client-java's messages span lines (code, body, headers); one line for the operator. */
    private static String brief(ApiException e) {
        if (e.getCode() == 0) {
            return "no answer from the API: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        }
        String status = e.getResponseBody() == null ? "" : " " + e.getResponseBody().replaceAll("\\s+", " ").strip();
        return "HTTP " + e.getCode() + status;
    }

    private static String human(Duration d) {
        return d.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }
}
