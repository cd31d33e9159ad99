package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rolling the measurements back by restarting a join service over an older, validly signed set (its
 * mount replayed): the highest version ever accepted lives in etcd, where the restart cannot lose it.
 */
@DisplayName("Attacks on the measurements floor: rollback across a restart")
class MeasurementsFloorAttacksTest {
    private static final String FLOOR = "/sextant/v1/measurements/floor";

    private TestCluster cluster;
    private TestClusterStore etcd;

    @BeforeEach
    void start() {
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        etcd.close();
    }

    @Test
    @DisplayName("a join service restarted over a validly signed older set (version 1 after 5 was accepted): every ticket refused FAILED_PRECONDITION naming both versions, nothing bound, the floor stays 5; a set of version 6 then serves and raises it")
    void rollbackAcrossARestart() throws Exception {
        cluster.publishMeasurements(5);
        assertEquals(Status.Code.OK, withService(join("floor-a")).getCode());
        assertEquals(Optional.of("5"), etcd.admin().get(FLOOR));

        cluster.publishMeasurements(1);
        Status rolledBack = withService(join("floor-b"));
        assertEquals(Status.Code.FAILED_PRECONDITION, rolledBack.getCode(), rolledBack.toString());
        assertTrue(rolledBack.getDescription().contains("version 1, lower than version 5 the cluster has accepted before"),
                rolledBack.getDescription());
        assertEquals(Optional.empty(), etcd.admin().get("/sextant/v1/bindings/node/floor-b"), "the refused join bound its name");
        assertEquals(Optional.of("5"), etcd.admin().get(FLOOR));

        cluster.publishMeasurements(6);
        assertEquals(Status.Code.OK, withService(join("floor-b")).getCode());
        assertEquals(Optional.of("6"), etcd.admin().get(FLOOR));
    }

    private interface Call {
        Status run(ManagedChannel channel);
    }

    /** One lifetime of the join service: started on the files as they are now, stopped after the call. */
    private Status withService(Call call) throws Exception {
        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "floor-join"));
        p.put("grpc.server.port", "0");
        try (ApplicationContext service = ApplicationContext.run(p, "test")) {
            GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
            server.start();
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
            try {
                return call.run(channel);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static Call join(String machine) {
        return channel -> {
            try {
                TestCaller.as(channel, TestCaller.ak(machine)).issueJoinTicket(IssueJoinTicketRequest.newBuilder()
                        .setDiskUuid(UUID.randomUUID().toString()).setNodeName(machine).build());
                return Status.OK;
            } catch (StatusRuntimeException e) {
                return e.getStatus();
            }
        };
    }
}
