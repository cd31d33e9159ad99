package dev.sextant.joinapi.plan;

import com.google.protobuf.ByteString;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.controlplane.ControlPlaneMaterial;
import dev.sextant.joinapi.kubeletca.ClusterCaCertificate;
import dev.sextant.joinapi.kubeletca.CsrCheck;
import dev.sextant.joinapi.kubeletca.KubeletSigner;
import dev.sextant.joinapi.token.BootstrapToken;
import dev.sextant.joinapi.token.BootstrapTokens;
import dev.sextant.joinapi.token.CaHashes;
import dev.sextant.proto.v1.ControlPlaneFile;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.KubeadmJoin;
import io.micronaut.context.annotation.Bean;
import jakarta.inject.Singleton;
import java.util.List;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;

/**
 * kubeadm: bootstrap token, CA pin, a kubelet client certificate for the request's CSR (which must
 * name the node) and, for a joining control plane, the PKI files.
 */
@Singleton
@Bean(typed = KubeadmPlan.class)
public class KubeadmPlan implements KubernetesJoinPlan {
    private final BootstrapTokens tokens;
    private final ClusterCaCertificate ca;
    private final ClusterInfo cluster;
    private final KubeletSigner signer;
    private final ControlPlaneMaterial controlPlane;

    public KubeadmPlan(BootstrapTokens tokens, ClusterCaCertificate ca, ClusterInfo cluster, KubeletSigner signer,
                       ControlPlaneMaterial controlPlane) {
        this.tokens = tokens;
        this.ca = ca;
        this.cluster = cluster;
        this.signer = signer;
        this.controlPlane = controlPlane;
    }

    @Override
    public Checked check(IssueJoinTicketRequest request, String nodeName) throws Refusal {
        PKCS10CertificationRequest csr = CsrCheck.check(request.getKubeletCsr().toByteArray(), nodeName);
        boolean controlPlaneNode = request.getControlPlane();
        return ticket -> {
            String kubeletCert = signer.sign(csr);
            List<ControlPlaneFile> files = controlPlaneNode ? controlPlane.files() : List.of();
            BootstrapToken token = tokens.create(nodeName);
            ticket.setKubeadm(KubeadmJoin.newBuilder()
                    .setApiServerEndpoint(cluster.apiServerEndpoint())
                    .setBootstrapToken(token.value())
                    .setCaCertHash(CaHashes.caCertHash(ca.certificate()))
                    .setKubeletCertificate(ByteString.copyFromUtf8(kubeletCert))
                    .addAllControlPlaneFiles(files));
        };
    }
}
