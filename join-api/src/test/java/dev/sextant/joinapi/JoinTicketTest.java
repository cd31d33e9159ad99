package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.binding.KubernetesBindingStore;
import dev.sextant.proto.v1.ControlPlaneFile;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kubernetes.client.openapi.models.V1Secret;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Join tickets: what an attested machine gets, and what stays bound to it")
class JoinTicketTest implements TestPropertyProvider {

    private final TestCluster cluster = new TestCluster();

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Override
    public Map<String, String> getProperties() {
        return cluster.properties();
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    static String newUuid() {
        return UUID.randomUUID().toString();
    }

    static IssueJoinTicketRequest request(String uuid, String node) {
        return IssueJoinTicketRequest.newBuilder().setDiskUuid(uuid).setNodeName(node)
                .setKubeletCsr(ByteString.copyFrom(Csrs.kubelet(node))).build();
    }

    private IssueJoinTicketResponse join(String machine, String uuid, String node) {
        return TestCaller.as(channel, TestCaller.ak(machine)).issueJoinTicket(request(uuid, node));
    }

    @Test
    @DisplayName("a join ticket carries the KMS keys (disk, measurement secret, discovery group key), the salt, the API endpoint, CA hashes and a bootstrap token")
    void happyPathTicket() throws Exception {
        String uuid = newUuid();
        Instant before = Instant.now();
        IssueJoinTicketResponse t = join("machine-a", uuid, "worker-a");

        assertArrayEquals(FakeKeyService.keyFor(uuid), t.getStateDiskKey().toByteArray());
        assertArrayEquals(FakeKeyService.keyFor("measurementSecret"), t.getMeasurementSecret().toByteArray());
        assertArrayEquals(FakeKeyService.keyFor("discoveryKey"), t.getDiscoveryKey().toByteArray(),
                "the discovery group key is the KMS data key 'discoveryKey'");
        assertArrayEquals(cluster.salt, t.getMeasurementSalt().toByteArray());
        assertEquals("10.0.0.1:6443", t.getApiServerEndpoint());
        assertEquals("v1.31.4+k3s1", t.getKubernetesVersion());
        assertEquals("sha256:" + Hex.sha256Hex(cluster.ca.getPublicKey().getEncoded()), t.getCaCertHash());
        assertTrue(t.getBootstrapToken().matches("[a-z0-9]{6}\\.[a-z0-9]{16}"), t.getBootstrapToken());
        String caFileHash = Hex.sha256Hex(Files.readAllBytes(cluster.dir.resolve("ca.crt")));
        assertEquals("K10" + caFileHash + "::" + t.getBootstrapToken(), t.getK3SToken());
        assertEquals(0, t.getControlPlaneFilesCount());
        assertTokenSecret(t.getBootstrapToken(), before);
    }

    private void assertTokenSecret(String token, Instant before) throws Exception {
        String id = token.substring(0, 6);
        V1Secret secret = cluster.kube.client().readNamespacedSecret("bootstrap-token-" + id, "kube-system").execute();
        assertEquals("bootstrap.kubernetes.io/token", secret.getType());
        Map<String, byte[]> data = secret.getData();
        assertEquals(id, text(data, "token-id"));
        assertEquals(token.substring(7), text(data, "token-secret"));
        assertEquals("true", text(data, "usage-bootstrap-authentication"));
        assertEquals("true", text(data, "usage-bootstrap-signing"));
        assertEquals("system:bootstrappers:kubeadm:default-node-token", text(data, "auth-extra-groups"));
        Instant expires = Instant.parse(text(data, "expiration"));
        Duration ttl = Duration.between(before, expires);
        assertTrue(ttl.compareTo(Duration.ofMinutes(14)) > 0 && ttl.compareTo(Duration.ofMinutes(16)) < 0, ttl.toString());
    }

    private static String text(Map<String, byte[]> data, String key) {
        return new String(data.get(key), StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("the kubelet certificate chains to the cluster CA, names the node, and is a one-year client-only leaf")
    void kubeletCertificate() throws Exception {
        IssueJoinTicketResponse t = join("machine-b", newUuid(), "worker-b");
        X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(t.getKubeletCertificate().toByteArray()));
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
    @DisplayName("the same machine asking again for its disk gets the same key; another machine is refused")
    void diskBinding() {
        String uuid = newUuid();
        IssueJoinTicketResponse first = join("machine-c", uuid, "worker-c");
        IssueJoinTicketResponse again = join("machine-c", uuid, "worker-c");
        assertEquals(first.getStateDiskKey(), again.getStateDiskKey());
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> join("intruder", uuid, "worker-x"));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("belongs to another machine"));
    }

    @Test
    @DisplayName("a node name held by another machine is refused with ALREADY_EXISTS")
    void nodeNameBinding() {
        join("machine-d", newUuid(), "worker-d");
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> join("machine-e", newUuid(), "worker-d"));
        assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
    }

    @Test
    @DisplayName("bindings live in the Kubernetes API: a fresh client (a restarted service) sees who owns the disk")
    void bindingSurvivesRestart() throws Exception {
        String uuid = newUuid();
        join("machine-f", uuid, "worker-f");
        BindingStore restarted = new KubernetesBindingStore(cluster.kube.client(), "kube-system");
        assertArrayEquals(TestCaller.ak("machine-f"), restarted.owner(BindingStore.Kind.DISK, uuid).orElseThrow());
        assertTrue(cluster.kube.bindings().stream().anyMatch(b -> b.getMetadata().getName().equals("sextant-disk-" + uuid)));
    }

    @Test
    @DisplayName("a rejoin returns the disk key only to the machine that joined with that disk")
    void rejoin() {
        String uuid = newUuid();
        IssueJoinTicketResponse joined = join("machine-g", uuid, "worker-g");
        var rejoin = TestCaller.as(channel, TestCaller.ak("machine-g"))
                .issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(uuid).build());
        assertEquals(joined.getStateDiskKey(), rejoin.getStateDiskKey());
        assertEquals(joined.getMeasurementSecret(), rejoin.getMeasurementSecret());
        StatusRuntimeException other = assertThrows(StatusRuntimeException.class, () -> TestCaller.as(channel,
                TestCaller.ak("intruder")).issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(uuid).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, other.getStatus().getCode());
        StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class, () -> TestCaller.as(channel,
                TestCaller.ak("machine-g")).issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(newUuid()).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, unknown.getStatus().getCode());
    }

    @Test
    @DisplayName("a control-plane ticket carries the PKI directory's files in path order, without Kubernetes' ..data entries")
    void controlPlaneFiles() {
        IssueJoinTicketRequest cp = request(newUuid(), "control-1").toBuilder().setControlPlane(true).build();
        IssueJoinTicketResponse t = TestCaller.as(channel, TestCaller.ak("machine-cp")).issueJoinTicket(cp);
        assertEquals(List.of("etcd/ca.key", "sa.pub"), t.getControlPlaneFilesList().stream().map(ControlPlaneFile::getName).toList());
        assertEquals("sa pub (test)", t.getControlPlaneFiles(1).getData().toStringUtf8());
    }

    @Test
    @DisplayName("a caller without an attested identity is refused with UNAUTHENTICATED")
    void unattested() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> TestCaller.as(channel, null).issueJoinTicket(request(newUuid(), "worker-u")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
    }
}
