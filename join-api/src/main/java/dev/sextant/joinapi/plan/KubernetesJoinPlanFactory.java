package dev.sextant.joinapi.plan;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the plan from {@code sextant.join.kubernetes.enabled} and
 * {@code sextant.join.kubernetes.distribution} ({@code k3s} by default, or {@code kubeadm}). Only
 * the chosen plan is built, so a k3s join service never loads a CA private key.
 */
@Factory
class KubernetesJoinPlanFactory {
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesJoinPlanFactory.class);

    @Singleton
    KubernetesJoinPlan plan(JoinServiceConfig config, BeanProvider<K3sPlan> k3s, BeanProvider<KubeadmPlan> kubeadm) {
        if (!config.kubernetes().enabled()) {
            LOG.info("no Kubernetes: tickets carry the membership keys and no Kubernetes plan");
            return (request, nodeName) -> ticket -> { };
        }
        return switch (config.kubernetes().distribution()) {
            case K3S -> k3s.get();
            case KUBEADM -> kubeadm.get();
        };
    }
}
