package dev.sextant.joinapi.plan;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.kubeletca.ClusterCaCertificate;
import dev.sextant.joinapi.token.BootstrapToken;
import dev.sextant.joinapi.token.BootstrapTokens;
import dev.sextant.joinapi.token.CaHashes;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.K3sJoin;
import io.micronaut.context.annotation.Bean;
import jakarta.inject.Singleton;

/**
 * k3s: server URL, CA pin and a K10 token. k3s makes and gets its own kubelet certificate, so the
 * join service signs nothing and holds no CA private key; a CSR in the request is ignored.
 */
@Singleton
@Bean(typed = K3sPlan.class)
public class K3sPlan implements KubernetesJoinPlan {
    private final BootstrapTokens tokens;
    private final ClusterCaCertificate ca;
    private final ClusterInfo cluster;

    public K3sPlan(BootstrapTokens tokens, ClusterCaCertificate ca, ClusterInfo cluster) {
        this.tokens = tokens;
        this.ca = ca;
        this.cluster = cluster;
    }

    @Override
    public Checked check(IssueJoinTicketRequest request, String nodeName) {
        return ticket -> {
            BootstrapToken token = tokens.create(nodeName);
            ticket.setK3S(K3sJoin.newBuilder()
                    .setServerUrl("https://" + cluster.apiServerEndpoint())
                    .setCaCertHash(CaHashes.caCertHash(ca.certificate()))
                    .setToken(CaHashes.k3sToken(ca.certificateFile(), token)));
        };
    }
}
