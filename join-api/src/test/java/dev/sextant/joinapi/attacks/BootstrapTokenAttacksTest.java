package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.KubeApiDouble;
import dev.sextant.joinapi.token.BootstrapToken;
import dev.sextant.joinapi.token.BootstrapTokenCleaner;
import dev.sextant.joinapi.token.BootstrapTokens;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A bootstrap token admits a kubelet to the cluster for as long as its Secret exists (the API server
 * authenticates bootstrap tokens against it). The rows run the join service's own token code against the
 * Kubernetes API test double (fabric8's CRUD server, speaking the real REST protocol); the nodes' kubelets
 * are played by the leases they would renew.
 */
@DisplayName("Attacks with a node's bootstrap token")
class BootstrapTokenAttacksTest {
    private final KubeApiDouble kube = new KubeApiDouble();
    private final CoreV1Api core = kube.client();
    private final BootstrapTokens tokens = new BootstrapTokens(core, Clock.systemUTC(), Duration.ofMinutes(15));
    private final BootstrapTokenCleaner cleaner = new BootstrapTokenCleaner(core);

    @AfterEach
    void close() {
        kube.close();
    }

    @Test
    @DisplayName("a leaked bootstrap token of a joined node (its kubelet has renewed its lease since the token was issued) no longer admits a kubelet: "
            + "its Secret is deleted; a token whose node has not joined yet, or whose node name has only a lease older than the token, is kept until it joins or expires")
    void joinedNodesTokenIsDeleted() throws Exception {
        BootstrapToken joined = tokens.create("worker-1");
        BootstrapToken joining = tokens.create("worker-2");
        BootstrapToken sameNameEarlierLife = tokens.create("worker-3");
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        lease("worker-1", now.plusSeconds(2));
        lease("worker-3", now.minusHours(1));

        assertEquals(List.of(joined.id()), cleaner.sweep());

        ApiException gone = assertThrows(ApiException.class,
                () -> core.readNamespacedSecret(joined.secretName(), "kube-system").execute());
        assertEquals(404, gone.getCode(), "the API server has nothing to authenticate the leaked token against");
        assertEquals(joining.id(), new String(token(joining).getData().get("token-id")), "worker-2 has not joined yet");
        assertEquals(sameNameEarlierLife.id(), new String(token(sameNameEarlierLife).getData().get("token-id")),
                "a lease from before the token says nothing about this token");
        assertTrue(cleaner.sweep().isEmpty(), "a second pass finds nothing more to delete");

        lease("worker-2", OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(2));
        assertEquals(List.of(joining.id()), cleaner.sweep(), "once worker-2's kubelet runs, its token goes too");
    }

    private io.kubernetes.client.openapi.models.V1Secret token(BootstrapToken token) throws ApiException {
        return core.readNamespacedSecret(token.secretName(), "kube-system").execute();
    }

    private void lease(String node, OffsetDateTime renewed) throws ApiException {
        CoordinationV1Api leases = new CoordinationV1Api(core.getApiClient());
        V1Lease lease = new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease")
                .metadata(new V1ObjectMeta().name(node).namespace("kube-node-lease"))
                .spec(new V1LeaseSpec().holderIdentity(node).leaseDurationSeconds(40).renewTime(renewed));
        try {
            leases.createNamespacedLease("kube-node-lease", lease).execute();
        } catch (ApiException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            V1Lease current = leases.readNamespacedLease(node, "kube-node-lease").execute();
            current.getSpec().renewTime(renewed);
            leases.replaceNamespacedLease(node, "kube-node-lease", current).execute();
        }
    }
}
