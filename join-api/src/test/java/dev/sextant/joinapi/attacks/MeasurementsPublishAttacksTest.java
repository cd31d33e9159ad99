package dev.sextant.joinapi.attacks;

import static dev.sextant.joinapi.measurements.PublishingCluster.RETIRED;
import static dev.sextant.joinapi.measurements.PublishingCluster.SET;
import static dev.sextant.joinapi.measurements.PublishingCluster.image;
import static dev.sextant.joinapi.measurements.PublishingCluster.set;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.joinapi.measurements.PublishingCluster;
import dev.sextant.joinapi.measurements.RetiredImages;
import dev.sextant.proto.v1.SignedMeasurements;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.security.KeyPair;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the measurement set in force in etcd and on {@code MeasurementsService.Publish}: the port asks
 * nothing of its caller, and whoever holds a control plane's disk (the host) can write etcd, so neither a caller
 * nor a value in etcd is trusted to be a valid set. Each refusal leaves the set in force, at every join service
 * and in etcd, as it was. The cluster: image A retired by set 3 (B only), then set 4 (B and C) that no longer
 * lists A: only {@code measurements/retired/A} remembers it.
 */
@DisplayName("Attacks on the published measurement set: unsigned, re-admitting, forged in etcd")
class MeasurementsPublishAttacksTest {
    private static final ImageMeasurements A = image("20261101.120000", 1);
    private static final ImageMeasurements B = image("20261127.101500", 2);
    private static final ImageMeasurements C = image("20261203.090000", 3);

    private PublishingCluster cluster;
    private String setInEtcd;

    @BeforeEach
    void rolledOutAndRetired() throws Exception {
        cluster = new PublishingCluster(2, set(1, List.of(A), List.of()));
        cluster.publish(0, cluster.signed(set(2, List.of(A, B), List.of())));
        cluster.publish(0, cluster.signed(set(3, List.of(B), List.of(A))));
        cluster.publish(1, cluster.signed(set(4, List.of(B, C), List.of())));
        cluster.awaitEvery(4);
        setInEtcd = cluster.admin().get(SET).orElseThrow();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    @DisplayName("a set that re-admits the retired image A, signed by the pinned key with a higher version (A itself; A's PCRs under a new name): FAILED_PRECONDITION naming A, measurements/retired/A stays, the set in force stays")
    void reAdmittingARetiredImage() throws Exception {
        ImageMeasurements renamed = new ImageMeasurements("20261204.000000", A.measurements());
        for (ImageMeasurements back : List.of(A, renamed)) {
            SignedMeasurements readmitting = cluster.signed(set(9, List.of(C, back), List.of()));
            Status refused = assertThrows(StatusRuntimeException.class, () -> cluster.publish(0, readmitting)).getStatus();
            assertEquals(Status.Code.FAILED_PRECONDITION, refused.getCode(), refused.toString());
            assertTrue(refused.getDescription().contains("admits image " + back.imageVersion()), refused.getDescription());
            assertTrue(refused.getDescription().contains(A.imageVersion()), refused.getDescription());
        }
        assertEquals(Optional.of(RetiredImages.digest(A.measurements())), cluster.admin().get(RETIRED + A.imageVersion()));
        assertUnchanged();
    }

    @Test
    @DisplayName("a set not signed by the pinned key (a signature by another key; another key swapped into the join service's key file and the set signed by it): PERMISSION_DENIED, the set in force stays")
    void notSignedByThePinnedKey() throws Exception {
        KeyPair attacker = PublishingCluster.otherKey();
        SignedMeasurements forged = cluster.signed(set(9, List.of(C), List.of()), attacker);
        Status refused = assertThrows(StatusRuntimeException.class, () -> cluster.publish(0, forged)).getStatus();
        assertEquals(Status.Code.PERMISSION_DENIED, refused.getCode(), refused.toString());
        assertTrue(refused.getDescription().contains("is not signed by the measurement signing key"), refused.getDescription());

        // Whoever writes the join service's ConfigMaps can swap its key file too: the pin in etcd still refuses.
        Files.writeString(cluster.cluster.measurementsPublicKey, PublishingCluster.pem(attacker.getPublic()));
        Status swapped = assertThrows(StatusRuntimeException.class, () -> cluster.publish(1, forged)).getStatus();
        assertEquals(Status.Code.PERMISSION_DENIED, swapped.getCode(), swapped.toString());
        assertTrue(swapped.getDescription().contains("but the cluster pinned key"), swapped.getDescription());
        assertUnchanged();
    }

    @Test
    @DisplayName("what the host writes into measurements/set itself (no JSON; a set signed by another key; the pinned key's set re-admitting A; an older signed set): every join service keeps set 4, also one started after A left the set's retired list")
    void forgedInEtcd() throws Exception {
        int fresh = cluster.start(); // remembers nothing of A but what etcd records
        cluster.awaitEvery(4);
        List<String> forgeries = List.of(
                "{\"json\": \"not base64!\", \"signature\": 7}",
                PublishingCluster.storeValue(cluster.signed(set(9, List.of(C), List.of()), PublishingCluster.otherKey())),
                PublishingCluster.storeValue(cluster.signed(set(9, List.of(C, A), List.of()))),
                PublishingCluster.storeValue(cluster.signed(set(2, List.of(A, B), List.of()))));
        for (String forged : forgeries) {
            cluster.admin().put(SET, forged);
            cluster.severalPolls();
            for (int i = 0; i < cluster.size(); i++) {
                assertEquals(4, cluster.versionAt(i), "join service " + i + " took a forged set");
                assertEquals(List.of(B.imageVersion(), C.imageVersion()), cluster.imagesAt(i));
            }
        }
        assertEquals(2, fresh);
        // The operator's next set replaces the forgery (compare-and-put at the revision read) and reaches everyone.
        cluster.publish(fresh, cluster.signed(set(5, List.of(C), List.of(B))));
        cluster.awaitEvery(5);
    }

    private void assertUnchanged() throws Exception {
        cluster.severalPolls();
        assertEquals(Optional.of(setInEtcd), cluster.admin().get(SET));
        for (int i = 0; i < cluster.size(); i++) {
            assertEquals(4, cluster.versionAt(i));
        }
    }
}
