package dev.sextant.nodeboot.deploy;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * The cluster services as Kubernetes workloads.
 *
 * @param joinImage    join service image (as `images` builds it; pulled by the cluster's runtime)
 * @param kmsImage     KMS image
 * @param joinNodePort the NodePort joining nodes call the join service on
 */
@ConfigurationProperties("sextant.services.kubernetes")
public record KubernetesServicesSettings(
        @Bindable(defaultValue = "sextant/join-service:0.1.0-SNAPSHOT") String joinImage,
        @Bindable(defaultValue = "sextant/kms:0.1.0-SNAPSHOT") String kmsImage,
        @Bindable(defaultValue = "30090") int joinNodePort) {
}
