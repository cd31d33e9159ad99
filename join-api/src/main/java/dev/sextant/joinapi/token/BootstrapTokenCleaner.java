package dev.sextant.joinapi.token;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Secret;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the bootstrap token of a node that has joined, so a token that leaks afterwards (from the node's
 * disk, a log, the ticket in flight) no longer admits a kubelet: the API server authenticates a bootstrap
 * token only against its Secret. "Joined" is read from the node's Lease in {@code kube-node-lease}, which
 * its kubelet renews every few seconds with its own credentials once it has registered: a renewal at or
 * after the token was issued means the kubelet of that name has run since, with what the token bought.
 * A lease older than the token (a node of the same name in an earlier life) does not count, and a token
 * whose node never joins expires at its TTL as before. A kubelet's clock that runs behind the join
 * service's only delays the deletion to the expiry.
 */
@Singleton
@Requires(property = JoinServiceConfig.KUBERNETES_ENABLED, notEquals = "false")
public class BootstrapTokenCleaner {
    static final String NODE_LEASES = "kube-node-lease";
    private static final String TOKEN_TYPE = "bootstrap.kubernetes.io/token";
    private static final Logger LOG = LoggerFactory.getLogger(BootstrapTokenCleaner.class);

    private final CoreV1Api api;
    private final CoordinationV1Api leases;

    @Inject
    public BootstrapTokenCleaner(CoreV1Api api) {
        this(api, new CoordinationV1Api(api.getApiClient()));
    }

    BootstrapTokenCleaner(CoreV1Api api, CoordinationV1Api leases) {
        this.api = api;
        this.leases = leases;
    }

    /**
     * One pass over the tokens this service issued.
     *
     * @return the ids of the tokens deleted
     * @throws ApiException when the tokens cannot be listed, a lease cannot be read (other than missing), or a
     *                      token cannot be deleted; the next pass tries again
     */
    public List<String> sweep() throws ApiException {
        List<String> deleted = new ArrayList<>();
        List<V1Secret> issued = api.listNamespacedSecret(BootstrapTokens.NAMESPACE)
                .labelSelector(BootstrapTokens.ISSUED_BY + "=" + BootstrapTokens.ISSUER).execute().getItems();
        for (V1Secret token : issued) {
            Map<String, String> notes = token.getMetadata().getAnnotations();
            if (!TOKEN_TYPE.equals(token.getType()) || notes == null || !notes.containsKey(BootstrapTokens.NODE)) {
                continue; // not a token, or one issued before tokens named their node: it expires on its own
            }
            String node = notes.get(BootstrapTokens.NODE);
            Optional<Instant> issuedAt = instant(notes.get(BootstrapTokens.ISSUED_AT));
            Optional<Instant> renewed = leaseRenewed(node);
            if (issuedAt.isPresent() && renewed.isPresent() && !renewed.get().isBefore(issuedAt.get())) {
                delete(token.getMetadata().getName());
                String id = token.getMetadata().getName().substring("bootstrap-token-".length());
                LOG.info("deleted bootstrap token {} of node {}: its kubelet has renewed its lease since the token was issued", id, node);
                deleted.add(id);
            }
        }
        return deleted;
    }

    private Optional<Instant> leaseRenewed(String node) throws ApiException {
        try {
            V1Lease lease = leases.readNamespacedLease(node, NODE_LEASES).execute();
            return Optional.ofNullable(lease.getSpec()).map(spec -> spec.getRenewTime()).map(OffsetDateTime::toInstant);
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private void delete(String secret) throws ApiException {
        try {
            api.deleteNamespacedSecret(secret, BootstrapTokens.NAMESPACE).execute();
        } catch (ApiException e) {
            if (e.getCode() != 404) { // another join service deleted it first
                throw e;
            }
        }
    }

    private static Optional<Instant> instant(String value) {
        try {
            return Optional.ofNullable(value).map(Instant::parse);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
