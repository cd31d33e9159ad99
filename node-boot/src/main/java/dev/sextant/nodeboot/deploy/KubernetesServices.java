package dev.sextant.nodeboot.deploy;

import dev.sextant.clusterservices.ClusterServices;
import dev.sextant.clusterservices.ClusterServicesApplier;
import dev.sextant.clusterservices.ServicesConfig;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

/**
 * The KMS and the join service as DaemonSets on the control plane, applied through the Kubernetes
 * API with the admin kubeconfig Kubernetes just produced (the manifests and their rendering are
 * the cluster-services module's; `sextant upgrade apply` changes them later).
 */
@Singleton
public final class KubernetesServices implements Deployer {
    private final KubernetesServicesSettings settings;

    public KubernetesServices(KubernetesServicesSettings settings) {
        this.settings = settings;
    }

    @Override
    public DeployedServices deploy(ServicesInput input) throws ClusterServicesException {
        ServicesConfig config;
        try {
            config = new ServicesConfig(settings.joinImage(), settings.kmsImage(), input.joinMeasurements().getJson().toByteArray(),
                    input.joinMeasurements().getSignature().toByteArray(), input.joinMeasurements().getPublicKeyPem(),
                    input.ekCaPem(), input.masterSecret(), input.masterSalt(), input.measurementSalt(),
                    input.apiServerEndpoint(), settings.joinNodePort(), input.initNode());
        } catch (IllegalArgumentException e) {
            throw new ClusterServicesException("the init request cannot configure the cluster services: " + e.getMessage(), e);
        }
        try {
            ApiClient client = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(
                    new StringReader(new String(input.kubeconfig(), StandardCharsets.UTF_8)))).build();
            ClusterServicesApplier.ApplyResult result = ClusterServicesApplier.apply(client, ClusterServices.render(config));
            // The cluster's etcd is not run here: Kubernetes mode keeps the services' state as before.
            return new DeployedServices("KMS and join service applied through the Kubernetes API ("
                    + result.count(ClusterServicesApplier.Action.CREATED) + " objects created, "
                    + result.count(ClusterServicesApplier.Action.UPDATED) + " updated); join service on NodePort "
                    + settings.joinNodePort(), EtcdStanding.NONE);
        } catch (ApiException e) {
            throw new ClusterServicesException("applying the cluster services: API server answered " + e.getCode() + " "
                    + e.getResponseBody(), e);
        } catch (IOException | RuntimeException e) {
            throw new ClusterServicesException("applying the cluster services: " + e.getMessage(), e);
        }
    }
}
