package dev.sextant.joinapi.token;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.kube.ApiFailures;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Creates kubeadm/k3s bootstrap tokens: Secret {@code bootstrap-token-<id>} of type
 * {@code bootstrap.kubernetes.io/token} in kube-system (the API server only honours them there),
 * id {@code [a-z0-9]{6}}, secret {@code [a-z0-9]{16}}, expiring after the TTL (15 min), which the
 * API server's token cleaner enforces even if nobody deletes the Secret. Each names the node it was
 * issued to and when, so {@link BootstrapTokenCleaner} deletes it as soon as that node has joined.
 */
@Singleton
public class BootstrapTokens {
    static final String GROUPS = "system:bootstrappers:kubeadm:default-node-token";
    static final String NAMESPACE = "kube-system";
    static final String ISSUED_BY = "sextant.dev/issued-by";
    static final String ISSUER = "join-api";
    /** The node the token was issued to (an annotation: a node name may be longer than a label value). */
    static final String NODE = "sextant.dev/node-name";
    /** When it was issued (RFC 3339, UTC): a node that has run since then has used its token. */
    static final String ISSUED_AT = "sextant.dev/issued-at";
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private static final int ATTEMPTS = 3;

    private final CoreV1Api api;
    private final Clock clock;
    private final Duration ttl;
    private final SecureRandom random = new SecureRandom();

    @Inject
    public BootstrapTokens(CoreV1Api api, Clock clock, JoinServiceConfig config) {
        this(api, clock, config.tokenTtl());
    }

    public BootstrapTokens(CoreV1Api api, Clock clock, Duration ttl) {
        this.api = api;
        this.clock = clock;
        this.ttl = ttl;
    }

    /** A new token for the node {@code nodeName}, stored as its Secret; the caller hands it out. */
    public BootstrapToken create(String nodeName) throws Refusal {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
            BootstrapToken token = new BootstrapToken(randomString(6), randomString(16), now.plus(ttl));
            try {
                api.createNamespacedSecret(NAMESPACE, secret(token, nodeName, now)).execute();
                return token;
            } catch (ApiException e) {
                // 409: a 1-in-2e9 id collision with a live token; draw a new id.
                if (e.getCode() != 409) {
                    throw ApiFailures.refusal("creating a bootstrap token", e);
                }
            }
        }
        throw new Refusal(JoinRefusal.INTERNAL, "could not find a free bootstrap token id");
    }

    private static V1Secret secret(BootstrapToken token, String nodeName, Instant issued) {
        return new V1Secret().apiVersion("v1").kind("Secret").type("bootstrap.kubernetes.io/token")
                .metadata(new V1ObjectMeta().name(token.secretName()).namespace(NAMESPACE)
                        .putLabelsItem(ISSUED_BY, ISSUER)
                        .putAnnotationsItem(NODE, nodeName)
                        .putAnnotationsItem(ISSUED_AT, issued.toString()))
                .putDataItem("description", bytes("issued by the Sextant join service to an attested node"))
                .putDataItem("token-id", bytes(token.id()))
                .putDataItem("token-secret", bytes(token.secret()))
                // RFC 3339 in UTC, as kubeadm writes it (Instant.toString is ISO-8601 with Z).
                .putDataItem("expiration", bytes(token.expires().toString()))
                .putDataItem("usage-bootstrap-authentication", bytes("true"))
                .putDataItem("usage-bootstrap-signing", bytes("true"))
                .putDataItem("auth-extra-groups", bytes(GROUPS));
    }

    private String randomString(int length) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return s.toString();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
