package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.K3sJoin;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kubernetes.client.openapi.models.V1Secret;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
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

    @Inject
    InMemoryBindingStoreDouble store;

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
    @DisplayName("a k3s join ticket carries the KMS keys (disk, measurement secret, discovery group key), the salt, the server URL, the CA hash, a K10 token and the join service role key, and no kubelet certificate")
    void happyPathTicket() throws Exception {
        String uuid = newUuid();
        Instant before = Instant.now();
        IssueJoinTicketResponse t = join("machine-a", uuid, "worker-a");

        assertArrayEquals(FakeKeyService.keyFor(uuid), t.getStateDiskKey().toByteArray());
        assertArrayEquals(FakeKeyService.keyFor("measurementSecret"), t.getMeasurementSecret().toByteArray());
        assertArrayEquals(FakeKeyService.keyFor("discoveryKey"), t.getDiscoveryKey().toByteArray(),
                "the discovery group key is the KMS data key 'discoveryKey'");
        assertArrayEquals(cluster.salt, t.getMeasurementSalt().toByteArray());
        assertEquals("v1.31.4+k3s1", t.getKubernetesVersion());
        assertEquals(IssueJoinTicketResponse.KubernetesCase.K3S, t.getKubernetesCase());
        K3sJoin k3s = t.getK3S();
        assertEquals("https://10.0.0.1:6443", k3s.getServerUrl());
        assertEquals("sha256:" + Sha256.hex(cluster.ca.getPublicKey().getEncoded()), k3s.getCaCertHash());
        String caFileHash = Sha256.hex(Files.readAllBytes(cluster.dir.resolve("ca.crt")));
        assertTrue(k3s.getToken().matches("K10" + caFileHash + "::[a-z0-9]{6}\\.[a-z0-9]{16}"), k3s.getToken());
        assertTokenSecret(cluster, k3s.getToken().substring(k3s.getToken().indexOf("::") + 2), before);
        assertArrayEquals(dev.sextant.keys.role.JoinServiceRoleKey.of(cluster.masterSecret, cluster.masterSalt).publicKey(),
                t.getJoinServiceRoleKey().toByteArray(), "the join service role key's public half, for the node's TPM record");
    }

    /** The token's Secret in kube-system: a bootstrap token for authentication and signing, expiring in 15 min. */
    static void assertTokenSecret(TestCluster cluster, String token, Instant before) throws Exception {
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
    @DisplayName("a retried join (same machine, same disk, same name) gets its ticket again; a second name or a second disk for one machine is refused")
    void onePerMachine() {
        String uuid = newUuid();
        join("machine-h", uuid, "worker-h");
        assertEquals(FakeKeyService.keyFor(uuid).length, join("machine-h", uuid, "worker-h").getStateDiskKey().size());

        StatusRuntimeException name = assertThrows(StatusRuntimeException.class, () -> join("machine-h", uuid, "worker-h2"));
        assertEquals(Status.Code.PERMISSION_DENIED, name.getStatus().getCode());
        assertTrue(name.getStatus().getDescription().contains("already joined as node worker-h"), name.getStatus().getDescription());
        StatusRuntimeException disk = assertThrows(StatusRuntimeException.class, () -> join("machine-h", newUuid(), "worker-h"));
        assertEquals(Status.Code.PERMISSION_DENIED, disk.getStatus().getCode());
        assertTrue(disk.getStatus().getDescription().contains("already owns state disk " + uuid), disk.getStatus().getDescription());
    }

    @Test
    @DisplayName("a node name held by another machine is refused with ALREADY_EXISTS")
    void nodeNameBinding() {
        join("machine-d", newUuid(), "worker-d");
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> join("machine-e", newUuid(), "worker-d"));
        assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
    }

    @Test
    @DisplayName("a ticket binds the disk and the name to the machine's AK, and the AK to its one disk, name and role, in the store the service uses")
    void bindingsInTheStore() {
        String uuid = newUuid();
        join("machine-f", uuid, "worker-f");
        String ak = HexFormat.of().formatHex(TestCaller.ak("machine-f"));
        Map<String, String> bound = store.snapshot();
        assertEquals(ak, bound.get("/sextant/v1/bindings/disk/" + uuid));
        assertEquals(ak, bound.get("/sextant/v1/bindings/node/worker-f"));
        assertEquals(uuid, bound.get("/sextant/v1/bindings/machine/" + ak + "/disk"), "the machine's one state disk");
        assertEquals("worker-f", bound.get("/sextant/v1/bindings/machine/" + ak + "/node"));
        assertEquals("worker", bound.get("/sextant/v1/bindings/machine/" + ak + "/role"));
    }

    @Test
    @DisplayName("a rejoin returns the disk key, and nothing else, only to the machine that joined with that disk")
    void rejoin() {
        String uuid = newUuid();
        IssueJoinTicketResponse joined = join("machine-g", uuid, "worker-g");
        int kmsCalls = cluster.kms.requests.size();
        var rejoin = TestCaller.as(channel, TestCaller.ak("machine-g"))
                .issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(uuid).build());
        assertEquals(IssueRejoinTicketResponse.newBuilder().setStateDiskKey(joined.getStateDiskKey()).build(), rejoin,
                "the disk key alone: no cluster secret goes to a node that finds everything else on its disk");
        assertEquals(List.of(List.of(uuid)), cluster.kms.requests.subList(kmsCalls, cluster.kms.requests.size()),
                "nor is any other key fetched from the KMS");
        StatusRuntimeException other = assertThrows(StatusRuntimeException.class, () -> TestCaller.as(channel,
                TestCaller.ak("intruder")).issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(uuid).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, other.getStatus().getCode());
        assertTrue(other.getStatus().getDescription().contains("only to the machine that owns the disk"),
                other.getStatus().getDescription());
        StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class, () -> TestCaller.as(channel,
                TestCaller.ak("machine-g")).issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(newUuid()).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, unknown.getStatus().getCode());
    }

    @Test
    @DisplayName("a caller without an attested identity is refused with UNAUTHENTICATED")
    void unattested() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> TestCaller.as(channel, null).issueJoinTicket(request(newUuid(), "worker-u")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
    }
}
