package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.NodeStatus;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A join and a rejoin are full attestations of the machine (over aTLS, against the set in force, its AK
 * chained to the EK CA): the node's record in etcd says so at once, written as a round writes it, so the
 * operator's view after a reboot or an upgrade is the machine's state now, not the last round's. The join
 * service as it runs: real aTLS with its reloading verifier, real etcd, its KMS; re-attestation off, so no
 * round writes the record the ticket is expected to write.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("A join or rejoin ticket records the node attested, as a re-attestation round would")
class RejoinRecordsAttestationTest {
    private static final String IMAGE = "1.1.0";
    private final AttestedNodes nodes = new AttestedNodes();
    private TestCluster cluster;
    private TestClusterStore etcd;
    private ApplicationContext service;
    private int port;
    private NodeStateStore store;

    @BeforeAll
    void start() throws Exception {
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "rejoin-record"));
        p.putAll(nodes.configure(cluster.dir));
        // The set in force names its image, as a release's does: the record must name what the evidence matched.
        Path measurements = Path.of((String) p.get(dev.sextant.serviceconfig.JoinServiceConfig.MEASUREMENTS_FILE));
        Files.write(measurements, MeasurementSet.of(1, nodes.good.measurements(), IMAGE).toJson());
        MeasurementsFile.sign(measurements, TestCluster.pem(nodes.signingKey.getPrivate()));
        p.put("grpc.server.port", "0");
        service = ApplicationContext.run(p, "test");
        GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
        server.start();
        port = server.getPort();
        store = service.getBean(NodeStateStore.class);
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {service, cluster, etcd}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private <T> T asGoodMachine(Function<JoinServiceGrpc.JoinServiceBlockingStub, T> body) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                .sslContext(AtlsContexts.client(OwnAttestation.by(nodes.good), ServerVerification.insecureAcceptAnyServer())).build();
        try {
            return body.apply(JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private NodeStatus status(String node) throws Exception {
        return store.all().stream().filter(n -> n.name().equals(node)).findFirst().orElseThrow();
    }

    @Test
    @DisplayName("a first join leaves the node attested with its image at the join; its rejoin after a reboot moves 'last attested' to the rejoin and the image version to the one its evidence matched")
    void rejoinMovesLastAttestedAndImage() throws Exception {
        String disk = JoinTicketTest.newUuid();
        Instant beforeJoin = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        asGoodMachine(s -> s.issueJoinTicket(JoinTicketTest.request(disk, "rejoin-1").toBuilder().setVerifyEndpoint("10.0.0.21:7443").build()));

        NodeStatus joined = status("rejoin-1");
        assertEquals(AttestationState.ATTESTED, joined.state(), joined.toString());
        assertEquals(Optional.of(IMAGE), joined.imageVersion());
        assertFalse(joined.lastSuccess().orElseThrow().isBefore(beforeJoin), joined.toString());
        assertEquals(Optional.of("10.0.0.21:7443"), joined.endpoint());

        // What the last round before the machine's reboot left: an hour old, the image it ran then, then missed rounds.
        AttestationRecord lastRound = AttestationRecord.attested(Instant.now().minusSeconds(3600), "1.0.0");
        store.recordAttestation("rejoin-1", AttestationRecord.missedAfter(Optional.of(lastRound), "PCR 15 is zero: the node rebooted"));
        assertEquals(AttestationState.UNREACHABLE, status("rejoin-1").state());

        Instant beforeRejoin = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        asGoodMachine(s -> s.issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(disk)
                .setVerifyEndpoint("10.0.0.22:7443").build()));

        NodeStatus rejoined = status("rejoin-1");
        assertEquals(AttestationState.ATTESTED, rejoined.state(), rejoined.toString());
        assertEquals(Optional.of(IMAGE), rejoined.imageVersion());
        assertFalse(rejoined.lastSuccess().orElseThrow().isBefore(beforeRejoin), rejoined.toString());
        assertEquals("", rejoined.reason());
        assertEquals(0, rejoined.missed());
        assertEquals(Optional.of("10.0.0.22:7443"), rejoined.endpoint());
        assertTrue(store.attestation("rejoin-1").orElseThrow().failure().isEmpty());
    }
}
