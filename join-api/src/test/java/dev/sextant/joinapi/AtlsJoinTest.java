package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.joinapi.measurements.ReloadingVerifier;
import dev.sextant.proto.v1.MeasurementsServiceGrpc;
import dev.sextant.proto.v1.SignedMeasurements;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.ecdsanative.NativeEcdsa;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Production wiring: the join service behind client-attested aTLS with the reloading verifier, its bindings in etcd")
class AtlsJoinTest implements TestPropertyProvider {
    private final TestCluster cluster = new TestCluster();
    private final TestClusterStore etcd = new TestClusterStore(1);
    private final AttestedNodes nodes = new AttestedNodes();

    @Inject
    GrpcEmbeddedServer server;

    @Inject
    Ecdsa ecdsa;

    @Inject
    ReloadingVerifier verifier;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>(etcd.joinService(cluster, "atls-join"));
        try {
            p.putAll(nodes.configure(cluster.dir));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
        etcd.close();
    }

    private <T> T call(OwnAttestation node, java.util.function.Function<JoinServiceGrpc.JoinServiceBlockingStub, T> body)
            throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(AtlsContexts.client(node, ServerVerification.insecureAcceptAnyServer())).build();
        try {
            return body.apply(JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("signs and verifies aTLS's ECDSA in native code (CI and nodes are linux-x86_64: BouncyCastle here would mean the provider failed to load)")
    void nativeEcdsa() {
        assertInstanceOf(NativeEcdsa.class, ecdsa);
    }

    @Test
    @DisplayName("an attested node gets a ticket, and its disk is bound in etcd to its real AK name")
    void attestedNodeJoins() throws Exception {
        String uuid = JoinTicketTest.newUuid();
        IssueJoinTicketResponse t = call(OwnAttestation.by(nodes.good), s -> s.issueJoinTicket(JoinTicketTest.request(uuid, "atls-1")));
        assertArrayEquals(FakeKeyService.keyFor(uuid), t.getStateDiskKey().toByteArray());
        assertEquals(java.util.HexFormat.of().formatHex(nodes.good.akName()),
                etcd.admin().get("/sextant/v1/bindings/disk/" + uuid).orElseThrow());
        StatusRuntimeException other = assertThrows(StatusRuntimeException.class,
                () -> call(OwnAttestation.by(nodes.goodToo), s -> s.issueJoinTicket(JoinTicketTest.request(uuid, "atls-2"))));
        assertEquals(Status.Code.PERMISSION_DENIED, other.getStatus().getCode());
    }

    @Test
    @DisplayName("a mis-measured node and a node with a foreign EK CA fail the handshake; an unattested client (no certificate, as the operator connects) is refused UNAUTHENTICATED before the method runs")
    void badPeersFailTheHandshake() throws Exception {
        int kmsCalls = cluster.kms.calls.get();
        for (OwnAttestation peer : List.of(OwnAttestation.by(nodes.misMeasured), OwnAttestation.by(nodes.foreign))) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                    () -> call(peer, s -> s.issueJoinTicket(JoinTicketTest.request(JoinTicketTest.newUuid(), "atls-bad"))));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), String.valueOf(e.getStatus()));
        }
        // The port verifies a quote when the client presents one; the operator presents none and proves
        // itself in its own service's calls, so for JoinService the interceptor is the lock.
        StatusRuntimeException unattested = assertThrows(StatusRuntimeException.class,
                () -> call(OwnAttestation.none(), s -> s.issueJoinTicket(JoinTicketTest.request(JoinTicketTest.newUuid(), "atls-bad"))));
        assertEquals(Status.Code.UNAUTHENTICATED, unattested.getStatus().getCode(), String.valueOf(unattested.getStatus()));
        assertEquals("the peer is not attested", unattested.getStatus().getDescription());
        assertEquals(kmsCalls, cluster.kms.calls.get(), "no key was fetched for a bad peer");
    }

    @Test
    @DisplayName("the operator without a TPM publishes a measurement set on the join port (MeasurementsService asks nothing of its caller): the service holds it in force")
    void unattestedOperatorPublishes() throws Exception {
        etcd.admin().put("/sextant/v1/measurements/key",
                MeasurementsKey.of(TestCluster.pem(nodes.signingKey.getPublic())).fingerprint()); // as init pins it
        Path next = cluster.dir.resolve("published.json");
        Files.write(next, MeasurementSet.of(7, verifier.measurements().images().get(0).measurements(),
                verifier.measurements().images().get(0).imageVersion()).toJson());
        MeasurementsFile.sign(next, TestCluster.pem(nodes.signingKey.getPrivate()));
        SignedMeasurements signed = SignedMeasurements.newBuilder().setJson(ByteString.copyFrom(Files.readAllBytes(next)))
                .setSignature(ByteString.copyFrom(Files.readAllBytes(MeasurementsFile.signatureFile(next)))).build();
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.insecureAcceptAnyServer())).build();
        try {
            assertEquals(7, MeasurementsServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .publish(signed).getVersion());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        assertEquals(7, verifier.version());
    }
}
