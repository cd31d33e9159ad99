package dev.sextant.joinapi.plan;

import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the plan from {@code sextant.join.kubernetes.enabled} and
 * {@code sextant.join.kubernetes.distribution} ({@code k3s} by default, or {@code kubeadm}). Only
 * the chosen plan is built, so a k3s join service never loads a CA private key.
 */
@Factory
class KubernetesPlanFactory {
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesPlanFactory.class);

    @Singleton
    KubernetesPlan plan(@Value("${sextant.join.kubernetes.enabled:true}") boolean enabled,
                        @Value("${sextant.join.kubernetes.distribution:k3s}") String distribution,
                        BeanProvider<K3sPlan> k3s, BeanProvider<KubeadmPlan> kubeadm) {
        if (!enabled) {
            LOG.info("no Kubernetes: tickets carry the membership keys and no Kubernetes plan");
            return (request, nodeName) -> ticket -> { };
        }
        return switch (distribution) {
            case "k3s" -> k3s.get();
            case "kubeadm" -> kubeadm.get();
            default -> throw new IllegalStateException("sextant.join.kubernetes.distribution must be k3s or kubeadm, not '"
                    + distribution + "'");
        };
    }
}
