package dev.sextant.joinapi.kube;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import io.kubernetes.client.openapi.ApiException;

/**
 * Maps a failed Kubernetes API call to a refusal. Transport failures (code 0), 429 and 5xx are
 * transient: the node gets UNAVAILABLE and retries. Anything else (403 from missing RBAC, 422 from
 * a bug) is this service's fault: INTERNAL. The exception is not kept as a cause: its message holds
 * the response body, which for a rejected Secret may echo the token, and causes get logged.
 */
public final class ApiFailures {
    private ApiFailures() {
    }

    public static Refusal refusal(String what, ApiException e) {
        int code = e.getCode();
        if (code == 0 || code == 429 || code >= 500) {
            return new Refusal(JoinRefusal.KUBERNETES_UNAVAILABLE,
                    "the Kubernetes API is unavailable (" + what + ": HTTP " + code + "); retry later");
        }
        return new Refusal(JoinRefusal.INTERNAL, "the Kubernetes API refused " + what + " (HTTP " + code + ")");
    }
}
