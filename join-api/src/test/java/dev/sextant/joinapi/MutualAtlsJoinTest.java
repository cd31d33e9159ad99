package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.HandshakeProofCheck;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.keys.role.JoinServiceRoleKey;
import dev.sextant.keys.role.JoinServiceRoleProof;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Mutual aTLS: the join service attests itself with a real (swtpm) TPM, and the node checks it")
class MutualAtlsJoinTest {
    private TestCluster cluster;
    private Swtpm tpm;
    private ApplicationContext context;
    private int port;
    private final AttestedNodes nodes = new AttestedNodes();

    @BeforeAll
    void start() throws Exception {
        Swtpm.assumeAvailable();
        cluster = new TestCluster();
        tpm = Swtpm.provisioned();
        // swtpm serves one connection at a time: the service opens its own.
        tpm.releaseClient();
        Map<String, Object> props = new HashMap<>(cluster.properties());
        props.putAll(nodes.configure(cluster.dir));
        props.put(JoinServiceConfig.ATLS_SERVER_TPM, tpm.tpmArg());
        props.put(JoinServiceConfig.ATLS_SERVER_EVENT_LOG, cluster.dir.resolve("no-event-log").toString());
        props.put("grpc.server.port", "0");
        props.put("micronaut.server.port", "-1");
        context = ApplicationContext.builder().properties(props).start();
        GrpcEmbeddedServer server = context.getBean(GrpcEmbeddedServer.class);
        server.start();
        port = server.getPort();
    }

    @AfterAll
    void stop() throws Exception {
        if (context != null) {
            context.close();
        }
        if (tpm != null) {
            tpm.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What a joining node knows: the EK CA of the control plane's TPM and that PCR 15 must be 0. */
    private AttestationVerifier serverVerifier(byte pcr15) {
        TreeMap<Integer, ExpectedValue> expected = new TreeMap<>();
        byte[] value = new byte[32];
        value[0] = pcr15;
        expected.put(15, new ExpectedValue(value, false));
        return new DocumentVerifier(new VerifierPolicy(new Measurements(Variant.QEMU_VTPM, expected),
                AkTrust.ekCa(List.of(tpm.ca().certificate()))));
    }

    private IssueJoinTicketResponse join(AttestationVerifier serverCheck, String uuid, String node) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                .sslContext(AtlsContexts.client(OwnAttestation.by(nodes.good), ServerVerification.by(serverCheck))).build();
        try {
            return JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .issueJoinTicket(JoinTicketTest.request(uuid, node));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("a node that verifies the server's TPM quote gets its ticket")
    void mutualJoin() throws Exception {
        String uuid = JoinTicketTest.newUuid();
        assertArrayEquals(FakeKeyService.keyFor(uuid), join(serverVerifier((byte) 0), uuid, "mutual-1")
                .getStateDiskKey().toByteArray());
    }

    @Test
    @DisplayName("a control plane's join service signs each handshake with the cluster's join service role key (from its master"
            + " secret), over the node's ClientHello.random and its certificate's key, which a rejoining node demands")
    void provesTheControlPlaneRole() throws Exception {
        byte[] roleKey = JoinServiceRoleProof.digestOf(JoinServiceRoleKey.of(cluster.masterSecret, cluster.masterSalt).publicKey());
        List<Boolean> proven = new CopyOnWriteArrayList<>();
        HandshakeProofCheck rejoiningNode = (proof, ownRandom, spkiHash) -> proven.add(proof.isPresent()
                && JoinServiceRoleProof.decode(proof.get()).provesFor(roleKey, ownRandom, spkiHash));
        for (int handshake = 0; handshake < 2; handshake++) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).sslContext(AtlsContexts.client(
                    OwnAttestation.by(nodes.good), ServerVerification.by(serverVerifier((byte) 0), rejoiningNode))).build();
            try {
                // An empty request: the handshake is what counts, and no disk gets bound to the test node's AK.
                StatusRuntimeException refused = assertThrows(StatusRuntimeException.class, () -> JoinServiceGrpc
                        .newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .issueJoinTicket(IssueJoinTicketRequest.getDefaultInstance()));
                assertEquals(Status.Code.INVALID_ARGUMENT, refused.getStatus().getCode(), refused::toString);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        assertEquals(List.of(true, true), proven);
    }

    @Test
    @DisplayName("a node expecting other server measurements hangs up before sending its request")
    void wrongServerRefused() {
        int kmsCalls = cluster.kms.calls.get();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> join(serverVerifier((byte) 1), JoinTicketTest.newUuid(), "mutual-2"));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        assertEquals(kmsCalls, cluster.kms.calls.get());
    }
}
