package dev.sextant.clusterservices;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1DaemonSetStatus;

/**
 * Plays the DaemonSet controller the API double does not have: writes the status a real controller
 * would report for one control-plane node, through the status subresource.
 */
public final class DaemonSetController {
    private final AppsV1Api apps;

    public DaemonSetController(ApiClient client) {
        this.apps = new AppsV1Api(client);
    }

    /** The latest spec is observed and its one pod is updated and available. */
    public void rolledOut(String name) throws ApiException {
        report(name, 1, 1);
    }

    /** The latest spec is observed, its pod is updated but never becomes available (a broken image). */
    public void stuck(String name) throws ApiException {
        report(name, 1, 0);
    }


    private void report(String name, int updated, int available) throws ApiException {
        V1DaemonSet ds = apps.readNamespacedDaemonSet(name, "kube-system").execute();
        ds.setStatus(new V1DaemonSetStatus().observedGeneration(ds.getMetadata().getGeneration())
                .desiredNumberScheduled(1).currentNumberScheduled(1).numberMisscheduled(0)
                .numberReady(available).updatedNumberScheduled(updated).numberAvailable(available)
                .numberUnavailable(1 - available));
        apps.replaceNamespacedDaemonSetStatus(name, "kube-system", ds).execute();
    }
}
