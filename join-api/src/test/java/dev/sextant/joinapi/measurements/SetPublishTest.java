package dev.sextant.joinapi.measurements;

import static dev.sextant.joinapi.measurements.PublishingCluster.FLOOR;
import static dev.sextant.joinapi.measurements.PublishingCluster.RETIRED;
import static dev.sextant.joinapi.measurements.PublishingCluster.SET;
import static dev.sextant.joinapi.measurements.PublishingCluster.image;
import static dev.sextant.joinapi.measurements.PublishingCluster.set;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.proto.v1.PublishResponse;
import dev.sextant.proto.v1.SignedMeasurements;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The set in force lives in etcd; the operator publishes the next one at any join service, and every service takes it. */
@DisplayName("MeasurementsService.Publish and the set in force in etcd")
class SetPublishTest {
    private static final ImageMeasurements A = image("20261101.120000", 1);
    private static final ImageMeasurements B = image("20261127.101500", 2);

    private PublishingCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new PublishingCluster(2, set(1, List.of(A), List.of()));
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    @DisplayName("a join service started on its file set where etcd holds none writes it to measurements/set: the file is only the first set")
    void firstSetFromTheFile() throws Exception {
        SignedMeasurements first = cluster.signed(set(1, List.of(A), List.of()));
        cluster.severalPolls();
        assertEquals(Optional.of(PublishingCluster.storeValue(first)), cluster.admin().get(SET));
    }

    @Test
    @DisplayName("the rollout set published at one join service (version 2, images A and B): both services on the one etcd hold it in force, and the floor is 2")
    void publishReachesEveryService() throws Exception {
        SignedMeasurements rollout = cluster.signed(set(2, List.of(A, B), List.of()));
        PublishResponse answer = cluster.publish(0, rollout);

        assertEquals(2, answer.getVersion());
        assertEquals(List.of(A.imageVersion(), B.imageVersion()), answer.getImageVersionsList());
        cluster.awaitEvery(2);
        assertEquals(List.of(A.imageVersion(), B.imageVersion()), cluster.imagesAt(1));
        assertEquals(Optional.of(PublishingCluster.storeValue(rollout)), cluster.admin().get(SET));
        assertEquals(Optional.of("2"), cluster.admin().get(FLOOR));
    }

    @Test
    @DisplayName("the retiring set (version 3, B only, A under retired): recorded as measurements/retired/<A> = SHA-256 of A's PCR 4‖9‖11 with the floor 3, answered as newly retired, and in force everywhere")
    void retiringSetIsRecorded() throws Exception {
        cluster.publish(0, cluster.signed(set(2, List.of(A, B), List.of())));
        PublishResponse answer = cluster.publish(1, cluster.signed(set(3, List.of(B), List.of(A))));

        assertEquals(List.of(A.imageVersion()), answer.getNewlyRetiredList());
        assertEquals(Optional.of(RetiredImages.digest(A.measurements())), cluster.admin().get(RETIRED + A.imageVersion()));
        assertEquals(Optional.of("3"), cluster.admin().get(FLOOR));
        cluster.awaitEvery(3);
        assertEquals(List.of(B.imageVersion()), cluster.imagesAt(0));
    }

    @Test
    @DisplayName("a set of the version in force, or lower: FAILED_PRECONDITION naming the version to publish, and the set in force stays at every service and in etcd")
    void versionNotAbove() throws Exception {
        cluster.publish(0, cluster.signed(set(2, List.of(A, B), List.of())));
        cluster.awaitEvery(2);
        String inEtcd = cluster.admin().get(SET).orElseThrow();
        for (long version : new long[]{2, 1}) {
            SignedMeasurements stale = cluster.signed(set(version, List.of(B), List.of()));
            Status refused = assertThrows(StatusRuntimeException.class, () -> cluster.publish(1, stale)).getStatus();
            assertEquals(Status.Code.FAILED_PRECONDITION, refused.getCode(), refused.toString());
            assertTrue(refused.getDescription().contains("version " + version + " is not above version 2, the one in force"),
                    refused.getDescription());
        }
        cluster.severalPolls();
        assertEquals(Optional.of(inEtcd), cluster.admin().get(SET));
        assertEquals(2, cluster.versionAt(0));
        assertEquals(2, cluster.versionAt(1));
    }

    @Test
    @DisplayName("bytes that are no measurement set: INVALID_ARGUMENT saying so, nothing written")
    void notASet() throws Exception {
        // Not a set is said before the signature is looked at (sextant measurements sign refuses to sign it).
        SignedMeasurements junk = cluster.signed(set(5, List.of(B), List.of())).toBuilder()
                .setJson(ByteString.copyFromUtf8("{\"format\": 2, \"version\": 5}")).build();
        Status refused = assertThrows(StatusRuntimeException.class, () -> cluster.publish(0, junk)).getStatus();
        assertEquals(Status.Code.INVALID_ARGUMENT, refused.getCode(), refused.toString());
        assertTrue(refused.getDescription().startsWith("not a measurement set: "), refused.getDescription());

        SignedMeasurements unsigned = cluster.signed(set(5, List.of(B), List.of())).toBuilder().setSignature(ByteString.EMPTY).build();
        Status noSignature = assertThrows(StatusRuntimeException.class, () -> cluster.publish(0, unsigned)).getStatus();
        assertEquals(Status.Code.PERMISSION_DENIED, noSignature.getCode(), noSignature.toString());
        assertEquals(Optional.empty(), cluster.admin().get(FLOOR));
    }
}
