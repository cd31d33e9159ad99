package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.proto.v1.ControlPlaneFile;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.KubeadmJoin;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("kubeadm join tickets: bootstrap token, CA hash, a kubelet certificate and control-plane files")
class KubeadmTicketTest implements TestPropertyProvider {

    private final TestCluster cluster = new TestCluster();
    /** A control plane's ticket adds its etcd member as a learner: real etcd. */
    private final TestClusterStore etcd = new TestClusterStore(1);

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = etcd.joinService(cluster, "kubeadm");
        p.put(JoinServiceConfig.KUBERNETES_DISTRIBUTION, "kubeadm");
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
        etcd.close();
    }

    private KubeadmJoin join(String machine, IssueJoinTicketRequest request) {
        IssueJoinTicketResponse t = TestCaller.as(channel, TestCaller.ak(machine)).issueJoinTicket(request);
        assertEquals(IssueJoinTicketResponse.KubernetesCase.KUBEADM, t.getKubernetesCase());
        return t.getKubeadm();
    }

    @Test
    @DisplayName("the plan carries the API endpoint, the CA's SPKI hash and a 15-minute bootstrap token")
    void plan() throws Exception {
        Instant before = Instant.now();
        KubeadmJoin k = join("kubeadm-a", JoinTicketTest.request(JoinTicketTest.newUuid(), "worker-a"));
        assertEquals("10.0.0.1:6443", k.getApiServerEndpoint());
        assertEquals("sha256:" + Sha256.hex(cluster.ca.getPublicKey().getEncoded()), k.getCaCertHash());
        assertTrue(k.getBootstrapToken().matches("[a-z0-9]{6}\\.[a-z0-9]{16}"), k.getBootstrapToken());
        JoinTicketTest.assertTokenSecret(cluster, k.getBootstrapToken(), before);
        assertEquals(0, k.getControlPlaneFilesCount());
    }

    @Test
    @DisplayName("the kubelet certificate chains to the cluster CA, names the node, and is a one-year client-only leaf")
    void kubeletCertificate() throws Exception {
        KubeadmJoin k = join("kubeadm-b", JoinTicketTest.request(JoinTicketTest.newUuid(), "worker-b"));
        X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(k.getKubeletCertificate().toByteArray()));
        cert.verify(cluster.ca.getPublicKey());
        assertEquals(cluster.ca.getSubjectX500Principal(), cert.getIssuerX500Principal());
        // The subject is the CSR's, RDN order included (Go's pkix puts O before CN, BC keeps what it is given).
        assertEquals(new javax.security.auth.x500.X500Principal("O=system:nodes, CN=system:node:worker-b"),
                cert.getSubjectX500Principal());
        assertEquals(List.of("1.3.6.1.5.5.7.3.2"), cert.getExtendedKeyUsage());
        assertEquals(-1, cert.getBasicConstraints());
        assertTrue(cert.getKeyUsage()[0] && cert.getKeyUsage()[2], "digitalSignature and keyEncipherment");
        assertFalse(cert.getKeyUsage()[5], "no keyCertSign");
        Duration validity = Duration.between(cert.getNotBefore().toInstant(), cert.getNotAfter().toInstant());
        assertEquals(Duration.ofDays(365).plusMinutes(5), validity);
        assertTrue(cert.getSerialNumber().bitLength() > 64, "random 128-bit serial");
    }

    @Test
    @DisplayName("a control-plane ticket carries the PKI directory's files in path order, without Kubernetes' ..data entries")
    void controlPlaneFiles() {
        IssueJoinTicketRequest cp = JoinTicketTest.request(JoinTicketTest.newUuid(), "control-1").toBuilder()
                .setControlPlane(true).setEtcdMember(EtcdPeer.newBuilder().setName("control-1")
                        .setPeerUrl("https://etcd-control-1.internal.test:2380").setClientUrl("https://etcd-control-1.internal.test:2379"))
                .build();
        KubeadmJoin k = join("kubeadm-cp", cp);
        assertEquals(List.of("etcd/ca.key", "sa.pub"), k.getControlPlaneFilesList().stream().map(ControlPlaneFile::getName).toList());
        assertEquals("sa pub (test)", k.getControlPlaneFiles(1).getData().toStringUtf8());
    }
}
