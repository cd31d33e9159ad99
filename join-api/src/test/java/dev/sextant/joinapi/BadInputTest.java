package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtensionsGenerator;
import org.bouncycastle.asn1.x509.GeneralName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Bad input (kubeadm, where the CSR is read): every malformed field is INVALID_ARGUMENT with a message, before anything is issued")
class BadInputTest implements TestPropertyProvider {
    private static final String UUID = "0f2c1a8e-5d4b-4c3a-9b2e-1f0e9d8c7b6a";
    private final TestCluster cluster = new TestCluster();

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

    @Inject
    InMemoryBindingStoreDouble store;

    @Override
    public Map<String, String> getProperties() {
        return cluster.kubeadmProperties();
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    static Stream<Arguments> rows() throws Exception {
        ExtensionsGenerator ca = new ExtensionsGenerator();
        ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        byte[] good = Csrs.kubelet("worker-1");
        byte[] tampered = good.clone();
        tampered[tampered.length - 3] ^= 0x01;
        byte[] huge = new byte[8 * 1024 + 1];
        return Stream.of(
                row("upper-case disk UUID", UUID.toUpperCase(), "worker-1", good, "disk_uuid"),
                row("disk UUID that is not a UUID", "../../etc/passwd", "worker-1", good, "disk_uuid"),
                row("empty disk UUID", "", "worker-1", good, "disk_uuid"),
                row("UUID with a bad variant nibble", "0f2c1a8e-5d4b-4c3a-7b2e-1f0e9d8c7b6a", "worker-1", good, "disk_uuid"),
                row("empty node name", UUID, "", good, "node_name"),
                row("upper-case node name", UUID, "Worker-1", good, "node_name"),
                row("node name with a dot", UUID, "worker.1", good, "node_name"),
                row("node name ending in a dash", UUID, "worker-", good, "node_name"),
                row("node name of 64 characters", UUID, "a".repeat(64), good, "node_name"),
                row("empty CSR", UUID, "worker-1", new byte[0], "kubelet_csr must be"),
                row("CSR over 8 KiB", UUID, "worker-1", huge, "kubelet_csr must be"),
                row("CSR that is garbage", UUID, "worker-1", "hello".getBytes(), "not a PKCS#10"),
                row("CSR with trailing bytes", UUID, "worker-1", Arrays.copyOf(good, good.length + 1), "kubelet_csr"),
                row("CSR whose signature does not verify", UUID, "worker-1", tampered, "kubelet_csr"),
                row("CSR for another node", UUID, "worker-1", Csrs.kubelet("worker-2"), "subject must be exactly"),
                row("CSR without O=system:nodes", UUID, "worker-1", Csrs.csr("CN=system:node:worker-1", null), "subject must be exactly"),
                row("CSR with O=system:masters", UUID, "worker-1",
                        Csrs.csr("CN=system:node:worker-1,O=system:masters", null), "subject must be exactly"),
                row("CSR with an extra OU", UUID, "worker-1",
                        Csrs.csr("CN=system:node:worker-1,O=system:nodes,OU=x", null), "subject must be exactly"),
                row("CSR with a second O", UUID, "worker-1",
                        Csrs.csr("CN=system:node:worker-1,O=system:nodes,O=system:masters", null), "subject must be exactly"),
                row("CSR asking for a CA certificate", UUID, "worker-1",
                        Csrs.csr("CN=system:node:worker-1,O=system:nodes", ca), "only subjectAltName"),
                row("CSR with a SAN naming another host", UUID, "worker-1", Csrs.withSan("CN=system:node:worker-1,O=system:nodes",
                        new GeneralName(GeneralName.dNSName, "api.example.com")), "subjectAltName"),
                row("CSR with a challenge password", UUID, "worker-1", Csrs.withChallengePassword("worker-1"), "attribute"));
    }

    private static Arguments row(String what, String uuid, String node, byte[] csr, String message) {
        return Arguments.of(what, IssueJoinTicketRequest.newBuilder().setDiskUuid(uuid).setNodeName(node)
                .setKubeletCsr(ByteString.copyFrom(csr)).build(), message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    @DisplayName("refused rows")
    void refused(String what, IssueJoinTicketRequest request, String message) throws Exception {
        int kmsCalls = cluster.kms.calls.get();
        int tokens = cluster.kube.bootstrapTokens().size();
        int bindings = store.snapshot().size();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> TestCaller.as(channel, TestCaller.ak("m")).issueJoinTicket(request));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), what);
        assertTrue(e.getStatus().getDescription().contains(message), e.getStatus().getDescription());
        assertEquals(kmsCalls, cluster.kms.calls.get(), "no key was fetched");
        assertEquals(tokens, cluster.kube.bootstrapTokens().size(), "no token was created");
        assertEquals(bindings, store.snapshot().size(), "nothing was bound");
    }

    @Test
    @DisplayName("a SAN with the node's own name and IP address is accepted")
    void ownSanAccepted() {
        byte[] csr = Csrs.withSan("O=system:nodes,CN=system:node:worker-9",
                new GeneralName(GeneralName.dNSName, "worker-9"), new GeneralName(GeneralName.iPAddress, "10.0.0.9"));
        var t = TestCaller.as(channel, TestCaller.ak("m9")).issueJoinTicket(IssueJoinTicketRequest.newBuilder()
                .setDiskUuid("9f2c1a8e-5d4b-4c3a-9b2e-1f0e9d8c7b6a").setNodeName("worker-9")
                .setKubeletCsr(ByteString.copyFrom(csr)).build());
        assertTrue(t.getKubeadm().getKubeletCertificate().toStringUtf8().startsWith("-----BEGIN CERTIFICATE-----"));
    }

    @Test
    @DisplayName("a rejoin with a malformed disk UUID is INVALID_ARGUMENT")
    void badRejoin() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> TestCaller.as(channel,
                TestCaller.ak("m")).issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid("x").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    }
}
