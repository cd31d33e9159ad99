package dev.sextant.clusterservices.upgrade;

import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1DaemonSetStatus;

/**
 * A DaemonSet's rollout as its controller reports it. Done when the controller has seen the latest
 * spec (observedGeneration >= generation) and every node it should run on has an updated pod that is
 * available: updatedNumberScheduled == numberAvailable == desiredNumberScheduled.
 */
record RolloutStatus(String name, long generation, long observedGeneration, int desired, int updated, int available) {

    static RolloutStatus of(V1DaemonSet ds) {
        V1DaemonSetStatus s = ds.getStatus();
        return new RolloutStatus(ds.getMetadata().getName(),
                orZero(ds.getMetadata().getGeneration()),
                s == null ? 0 : orZero(s.getObservedGeneration()),
                s == null ? 0 : orZero(s.getDesiredNumberScheduled()),
                s == null ? 0 : orZero(s.getUpdatedNumberScheduled()),
                s == null ? 0 : orZero(s.getNumberAvailable()));
    }

    boolean complete() {
        return observedGeneration >= generation && updated == desired && available == desired;
    }

    String describe() {
        return "generation " + generation + ", observed " + observedGeneration + "; desired " + desired
                + ", updated " + updated + ", available " + available;
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    private static int orZero(Integer v) {
        return v == null ? 0 : v;
    }
}
