package dev.sextant.clusterservices;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1PodSpec;
import java.nio.file.Path;
import java.util.Map;

/**
 * A cluster whose services were applied and rolled out (version 1.0 images, initial measurements),
 * on the API double: the starting point of every upgrade test.
 */
public final class UpgradeFixture implements AutoCloseable {
    public final KubeApiDouble kube = new KubeApiDouble();
    public final DaemonSetController controller = new DaemonSetController(kube.client());
    public final TestServices services;
    public final ServicesConfig config;

    public UpgradeFixture(Path dir) throws Exception {
        services = new TestServices(dir);
        config = services.config();
        ClusterServicesApplier.apply(kube.client(), ClusterServices.render(config));
        controller.rolledOut(ClusterServices.JOIN_DAEMONSET);
    }

    /** The image of a container of the services' pod (join service or KMS). */
    public String image(String container) throws ApiException {
        return ClusterServices.container(pod(ClusterServices.JOIN_DAEMONSET).getContainers(), container).getImage();
    }

    public V1PodSpec pod(String daemonSet) throws ApiException {
        return new AppsV1Api(kube.client()).readNamespacedDaemonSet(daemonSet, "kube-system").execute().getSpec().getTemplate().getSpec();
    }

    public Map<String, String> joinConfig() throws ApiException {
        return new CoreV1Api(kube.client()).readNamespacedConfigMap("join-config", "kube-system").execute().getData();
    }

    /** The public key the join services verify their measurements with (ConfigMap sextant-measurements-key). */
    public String measurementsKey() throws ApiException {
        return new CoreV1Api(kube.client()).readNamespacedConfigMap(ClusterServices.MEASUREMENTS_PUBLIC_KEY_CONFIGMAP, "kube-system")
                .execute().getData().get(ClusterServices.MEASUREMENTS_PUBLIC_KEY_KEY);
    }

    @Override
    public void close() {
        kube.close();
    }
}
