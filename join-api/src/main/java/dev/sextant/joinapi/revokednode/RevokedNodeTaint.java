package dev.sextant.joinapi.revokednode;

import dev.sextant.joinapi.kube.ApiFailures;
import dev.sextant.joinapi.reattest.RevokedNodeFollowUp;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1Taint;
import io.kubernetes.client.util.PatchUtils;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cordons a revoked node's Node object ({@code spec.unschedulable}) and taints it {@value #KEY}{@code =<code>:}{@value #EFFECT}
 * (docs/re-attestation.md): the scheduler places nothing more on it and the taint manager evicts the pods that
 * run there (pods that tolerate every taint, as kube-proxy's do, stay). The Node's name is the node name bound
 * to the revoked AK: a kubelet registers under the name its join ticket was issued for.
 *
 * <p>One read and, when something is missing, one JSON patch (RFC 6902) that tests the read's resourceVersion and
 * sets {@code spec.unschedulable} and the whole taint list: the Node's own taints with the revocation's added. The
 * API server refuses it if the Node changed since the read (a taint added meanwhile is not lost; the next round
 * reads again). Not a merge patch: one replaces a list whole too, and the test double appends to it instead. A Node already cordoned with the taint is not written to: applying it
 * again changes nothing, which is what lets the holder apply it at every round ({@link RevokedNodeFollowUp}).
 * That every round matters: the revoked machine's kubelet keeps its Kubernetes credentials, and may uncordon its
 * Node or delete it and register it again without the taint; the next round puts both back.
 */
@Singleton
@Requires(property = JoinServiceConfig.KUBERNETES_ENABLED, notEquals = "false")
public class RevokedNodeTaint implements RevokedNodeFollowUp {
    public static final String KEY = "sextant.dev/revoked";
    public static final String EFFECT = "NoExecute";
    /** The value when a reason does not start with a code that is a label value (the codes are enum names: never, today). */
    static final String UNNAMED = "REVOKED";
    /** A taint's value is a label value: at most 63 characters, alphanumeric at both ends. */
    private static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    private static final Logger LOG = LoggerFactory.getLogger(RevokedNodeTaint.class);

    /** What {@link #apply(String, String)} found. */
    public enum Outcome {
        /** The Node lacked the cordon or the taint and has both now. */
        CORDONED_AND_TAINTED,
        /** The Node was cordoned and tainted already: nothing was written. */
        ALREADY,
        /** There is no Node of that name (it never registered, or was deleted): nothing to cordon. */
        NO_NODE
    }

    private final CoreV1Api api;
    private final Clock clock;
    /** Nodes whose missing Node was logged: said once, not every round. */
    private final Set<String> missingLogged = ConcurrentHashMap.newKeySet();

    public RevokedNodeTaint(CoreV1Api api, Clock clock) {
        this.api = api;
        this.clock = clock;
    }

    /**
     * Every revoked node in turn. A missing Node is logged once; a failed call is logged, and when the API
     * server is unreachable or in trouble (no answer, 429, 5xx) the rest wait for the next round instead of
     * waiting out the client's timeout once per revoked node.
     */
    @Override
    public void apply(Map<String, String> reasonByNode) {
        for (Map.Entry<String, String> revoked : reasonByNode.entrySet()) {
            String node = revoked.getKey();
            try {
                Outcome outcome = apply(node, revoked.getValue());
                if (outcome == Outcome.NO_NODE) {
                    if (missingLogged.add(node)) {
                        LOG.info("revoked node {} has no Node object in Kubernetes (not registered, or deleted): nothing to cordon;"
                                + " looked for again at every round", node);
                    }
                    continue;
                }
                missingLogged.remove(node);
                if (outcome == Outcome.CORDONED_AND_TAINTED) {
                    LOG.warn("cordoned revoked node {} and tainted it {}={}:{}: its pods are evicted", node, KEY, code(revoked.getValue()), EFFECT);
                }
            } catch (ApiException e) {
                // The code only (ApiFailures): the answer's body is not logged.
                LOG.warn("revoked node {} is not cordoned and tainted yet: {}; the next round tries again", node,
                        ApiFailures.refusal("patching Node " + node, e).getMessage());
                int code = e.getCode();
                if (code == 0 || code == 429 || code >= 500) {
                    return;
                }
            } catch (RuntimeException e) {
                // client-java refuses an answer it cannot map (a field its models lack): the class only, as
                // BootstrapTokenCleanup logs it; the round goes on, and the next one tries again.
                LOG.warn("revoked node {} is not cordoned and tainted yet ({}); the next round tries again", node,
                        e.getClass().getSimpleName());
            }
        }
    }

    /**
     * Cordons {@code node}'s Node and taints it with the code of {@code reason}.
     *
     * @throws ApiException when the Node cannot be read (other than missing) or patched (refused when it changed
     *                      since the read)
     */
    public Outcome apply(String node, String reason) throws ApiException {
        V1Node current;
        try {
            current = api.readNode(node).execute();
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return Outcome.NO_NODE;
            }
            throw e;
        }
        String value = code(reason);
        V1NodeSpec spec = current.getSpec() == null ? new V1NodeSpec() : current.getSpec();
        List<V1Taint> taints = spec.getTaints() == null ? List.of() : spec.getTaints();
        boolean tainted = taints.stream().anyMatch(t -> isRevocationTaint(t) && value.equals(t.getValue()));
        if (tainted && Boolean.TRUE.equals(spec.getUnschedulable())) {
            return Outcome.ALREADY;
        }
        List<V1Taint> wanted = new ArrayList<>(taints);
        if (!tainted) {
            // Another value under our key and effect (written by hand) gives way; every other taint stays. A taint
            // already ours keeps its timeAdded, from which the taint manager counts tolerationSeconds.
            wanted.removeIf(RevokedNodeTaint::isRevocationTaint);
            wanted.add(new V1Taint().key(KEY).value(value).effect(EFFECT).timeAdded(OffsetDateTime.now(clock)));
        }
        List<Map<String, Object>> patch = new ArrayList<>();
        String resourceVersion = current.getMetadata() == null ? null : current.getMetadata().getResourceVersion();
        if (resourceVersion != null) {
            patch.add(Map.of("op", "test", "path", "/metadata/resourceVersion", "value", resourceVersion));
        }
        // "add" sets a member whether or not it is there (RFC 6902).
        patch.add(Map.of("op", "add", "path", "/spec/unschedulable", "value", true));
        patch.add(Map.of("op", "add", "path", "/spec/taints", "value", wanted));
        PatchUtils.patch(V1Node.class, () -> api.patchNode(node, new V1Patch(JSON.serialize(patch))).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_PATCH, api.getApiClient());
        return Outcome.CORDONED_AND_TAINTED;
    }

    /** The taint's value: the reason's code, "PCR_MISMATCH" of "PCR_MISMATCH: PCR 4 differs". */
    static String code(String reason) {
        int colon = reason.indexOf(':');
        String code = (colon < 0 ? reason : reason.substring(0, colon)).trim();
        return LABEL_VALUE.matcher(code).matches() ? code : UNNAMED;
    }

    private static boolean isRevocationTaint(V1Taint taint) {
        return KEY.equals(taint.getKey()) && EFFECT.equals(taint.getEffect());
    }
}
