package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestJoinService;
import dev.sextant.joinapi.measurements.PublishedSetWatcher;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rolling the measurements back by restarting a join service over an older, validly signed set (its
 * mount replayed): the highest version ever accepted lives in etcd, where the restart cannot lose it.
 */
@DisplayName("Attacks on the measurements floor: rollback across a restart")
class MeasurementsFloorAttacksTest {
    private static final String FLOOR = "/sextant/v1/measurements/floor";

    // The floor alone is judged here. The published-set watcher would take the cluster's set (version 5, which
    // the first service wrote to measurements/set) in place of the replayed file at its first poll: a second
    // defence, with its own tests; left on, whether the first ticket after the restart came before or after
    // that poll decided this test (seen both ways).
    @AutoClose
    private final TestJoinService service = new TestJoinService("floor-join").with(PublishedSetWatcher.ENABLED, "false");

    @Test
    @DisplayName("a join service restarted over a validly signed older set (version 1 after 5 was accepted): every ticket refused FAILED_PRECONDITION naming both versions, nothing bound, the floor stays 5; a set of version 6 then serves and raises it")
    void rollbackAcrossARestart() throws Exception {
        service.cluster.publishMeasurements(5);
        assertEquals(Status.Code.OK, withService(join("floor-a")).getCode());
        assertEquals(Optional.of("5"), service.admin().get(FLOOR));

        service.cluster.publishMeasurements(1);
        Status rolledBack = withService(join("floor-b"));
        assertEquals(Status.Code.FAILED_PRECONDITION, rolledBack.getCode(), rolledBack.toString());
        assertTrue(rolledBack.getDescription().contains("version 1, lower than version 5 the cluster has accepted before"),
                rolledBack.getDescription());
        assertEquals(Optional.empty(), service.admin().get("/sextant/v1/bindings/node/floor-b"), "the refused join bound its name");
        assertEquals(Optional.of("5"), service.admin().get(FLOOR));

        service.cluster.publishMeasurements(6);
        assertEquals(Status.Code.OK, withService(join("floor-b")).getCode());
        assertEquals(Optional.of("6"), service.admin().get(FLOOR));
    }

    private interface Call {
        Status run(ManagedChannel channel);
    }

    /** One lifetime of the join service: started on the files as they are now, stopped after the call. */
    private Status withService(Call call) throws Exception {
        service.start();
        try {
            return call.run(service.channel());
        } finally {
            service.stop();
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
