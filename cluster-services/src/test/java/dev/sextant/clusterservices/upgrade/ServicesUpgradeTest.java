package dev.sextant.clusterservices.upgrade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.clusterservices.ClusterServices;
import dev.sextant.clusterservices.TestServices;
import dev.sextant.clusterservices.UpgradeFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("sextant upgrade apply: new images and measurements, rollout wait, rollback")
class ServicesUpgradeTest {
    private static final String JOIN_V2 = TestServices.JOIN_IMAGE_V2;
    private static final String KMS_V2 = TestServices.KMS_IMAGE_V2;
    private static final Duration POLL = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    private UpgradeFixture cluster;
    private Instant now = Instant.parse("2026-11-22T06:00:00Z");
    private final AtomicInteger sleeps = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        cluster = new UpgradeFixture(dir);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    /** Time moves only when the upgrade sleeps; each sleep is one controller step. */
    private ServicesUpgrade upgrade(ControllerStep step) {
        Clock clock = new Clock() {
            @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
            @Override public Clock withZone(java.time.ZoneId zone) { return this; }
            @Override public Instant instant() { return now; }
        };
        return new ServicesUpgrade(cluster.kube.client(), clock, d -> {
            now = now.plus(d);
            sleeps.incrementAndGet();
            try {
                step.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, POLL);
    }

    @FunctionalInterface
    private interface ControllerStep {
        void run() throws Exception;
    }

    private Map<String, String> initialMeasurements() throws Exception {
        return cluster.joinConfig();
    }

    @Test
    @DisplayName("the DaemonSet rolls out: the new images of both containers and the measurements stay, and the upgrade succeeds")
    void successfulRollout() throws Exception {
        Path newMeasurements = cluster.services.signedMeasurements("v2.json", 0x22);
        UpgradeOutcome outcome = upgrade(() -> {
            cluster.controller.rolledOut(ClusterServices.JOIN_DAEMONSET);
        }).upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.of(SignedMeasurementsFile.read(newMeasurements)),
                Duration.ofMinutes(5), false));

        assertEquals(UpgradeOutcome.Result.SUCCEEDED, outcome.result(), outcome.message());
        assertEquals(JOIN_V2, cluster.image(ClusterServices.JOIN_CONTAINER));
        assertEquals(KMS_V2, cluster.image(ClusterServices.KMS_CONTAINER));
        assertEquals(Files.readString(newMeasurements), cluster.joinConfig().get("measurements.json"));
        assertEquals(Files.readString(MeasurementsFile.signatureFile(newMeasurements)), cluster.joinConfig().get("measurements.json.sig"));
        assertEquals(1, sleeps.get(), "one poll interval until the controller reported the rollout");
    }

    @Test
    @DisplayName("a rollout that never completes times out and is rolled back: previous images and measurements, the DaemonSet named")
    void timeoutRollsBack() throws Exception {
        Map<String, String> before = initialMeasurements();
        Path newMeasurements = cluster.services.signedMeasurements("v2.json", 0x22);
        UpgradeOutcome outcome = upgrade(() -> {
            cluster.controller.stuck(ClusterServices.JOIN_DAEMONSET); // the new join service never becomes available
        }).upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.of(SignedMeasurementsFile.read(newMeasurements)),
                Duration.ofSeconds(30), false));

        assertEquals(UpgradeOutcome.Result.ROLLED_BACK, outcome.result());
        assertTrue(outcome.message().contains("DaemonSet kube-system/sextant-join-service did not finish its rollout within 30s"),
                outcome.message());
        assertTrue(outcome.message().contains("desired 1, updated 1, available 0"), outcome.message());
        assertTrue(outcome.message().contains("rolled back to the previous images (join service " + TestServices.JOIN_IMAGE
                + ", KMS " + TestServices.KMS_IMAGE + ") and measurements"), outcome.message());
        assertEquals(TestServices.JOIN_IMAGE, cluster.image(ClusterServices.JOIN_CONTAINER));
        assertEquals(TestServices.KMS_IMAGE, cluster.image(ClusterServices.KMS_CONTAINER));
        assertEquals(before, cluster.joinConfig());
        assertEquals(15, sleeps.get(), "30 s at a 2 s poll interval");
    }

    @Test
    @DisplayName("--no-wait applies and returns without polling, so nothing is rolled back")
    void noWaitReturnsAtOnce() throws Exception {
        UpgradeOutcome outcome = upgrade(() -> { throw new AssertionError("--no-wait must not wait"); })
                .upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.empty(), Duration.ofMinutes(5), true));

        assertEquals(UpgradeOutcome.Result.APPLIED_NOT_WAITED, outcome.result());
        assertEquals(0, sleeps.get());
        assertEquals(JOIN_V2, cluster.image(ClusterServices.JOIN_CONTAINER));
        assertEquals(KMS_V2, cluster.image(ClusterServices.KMS_CONTAINER));
    }

    @Test
    @DisplayName("measurements whose signature does not verify with the cluster's key change nothing")
    void badSignatureChangesNothing() throws Exception {
        Map<String, String> before = initialMeasurements();
        Path tampered = cluster.services.signedMeasurements("v2.json", 0x22);
        Files.writeString(tampered, TestServices.measurementsJson(0x66)); // changed after signing
        int writes = cluster.kube.writes();

        MeasurementsException e = assertThrows(MeasurementsException.class, () -> upgrade(() -> { })
                .upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.of(SignedMeasurementsFile.read(tampered)),
                        Duration.ofMinutes(5), false)));

        assertTrue(e.getMessage().contains("is not a valid signature"), e.getMessage());
        assertEquals(writes, cluster.kube.writes(), "not a single write");
        assertEquals(TestServices.JOIN_IMAGE, cluster.image(ClusterServices.JOIN_CONTAINER));
        assertEquals(before, cluster.joinConfig());
    }

    @Test
    @DisplayName("measurements without a .sig file are refused before anything is read from the cluster")
    void missingSignatureIsRefused() throws Exception {
        Path unsigned = Files.writeString(dir.resolve("unsigned.json"), TestServices.measurementsJson(0x22));
        MeasurementsException e = assertThrows(MeasurementsException.class, () -> SignedMeasurementsFile.read(unsigned));
        assertTrue(e.getMessage().contains("unsigned.json.sig does not exist"), e.getMessage());
    }

    @Test
    @DisplayName("an update the API refuses half-way (measurements written, DaemonSet refused) is rolled back, naming the refusal")
    void refusedUpdateRollsBack() throws Exception {
        Map<String, String> before = initialMeasurements();
        Path newMeasurements = cluster.services.signedMeasurements("v2.json", 0x22);
        cluster.kube.failWhen("PUT", "/apis/apps/v1/namespaces/kube-system/daemonsets/sextant-join-service");
        UpgradeOutcome outcome = upgrade(() -> { }).upgrade(new UpgradeRequest(JOIN_V2, KMS_V2,
                Optional.of(SignedMeasurementsFile.read(newMeasurements)), Duration.ofMinutes(5), false));

        assertEquals(UpgradeOutcome.Result.ROLLED_BACK, outcome.result(), outcome.message());
        assertTrue(outcome.message().startsWith("the update was refused (HTTP 500"), outcome.message());
        assertEquals(TestServices.JOIN_IMAGE, cluster.image(ClusterServices.JOIN_CONTAINER));
        assertEquals(before, cluster.joinConfig(), "the measurements went back too");
    }

    @Test
    @DisplayName("a rollback the API refuses too is reported as such, for the operator to act on")
    void failedRollbackIsReported() throws Exception {
        UpgradeOutcome outcome = upgrade(() -> {
            if (sleeps.get() == 1) {
                cluster.controller.stuck(ClusterServices.JOIN_DAEMONSET);
                cluster.kube.failWhen("PUT", "/apis/apps/v1/namespaces/kube-system/daemonsets/sextant-join-service");
            }
        }).upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.empty(), Duration.ofSeconds(4), false));

        assertEquals(UpgradeOutcome.Result.ROLLBACK_FAILED, outcome.result());
        assertTrue(outcome.message().contains("FAILED: DaemonSet sextant-join-service: HTTP 500"), outcome.message());
    }

    @Test
    @DisplayName("a key rotation in two applies: the set signed by the cluster's key naming NEXT goes in as any set; "
            + "the following set, signed by NEXT, is accepted because the set in force names NEXT, and the key ConfigMap then holds NEXT")
    void keyRotationInTwoApplies() throws Exception {
        KeyPair next = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        String clusterKey = cluster.measurementsKey();
        Path rotating = cluster.services.signedMeasurements("v2.json", 0x22, cluster.services.measurementsKey(), next.getPublic());
        UpgradeOutcome first = upgrade(() -> cluster.controller.rolledOut(ClusterServices.JOIN_DAEMONSET))
                .upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.of(SignedMeasurementsFile.read(rotating)), Duration.ofMinutes(5), false));
        assertEquals(UpgradeOutcome.Result.SUCCEEDED, first.result(), first.message());
        assertEquals(clusterKey, cluster.measurementsKey(), "the rotating set is signed by the cluster's key, which stays");

        Path signedByNext = cluster.services.signedMeasurements("v3.json", 0x33, next, null);
        UpgradeOutcome second = upgrade(() -> cluster.controller.rolledOut(ClusterServices.JOIN_DAEMONSET))
                .upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.of(SignedMeasurementsFile.read(signedByNext)), Duration.ofMinutes(5), false));
        assertEquals(UpgradeOutcome.Result.SUCCEEDED, second.result(), second.message());
        assertTrue(second.message().contains("signed by the next key their predecessor named"), second.message());
        assertEquals(Files.readString(signedByNext), cluster.joinConfig().get("measurements.json"));
        assertEquals(MeasurementsKey.of(TestServices.pemOf(next.getPublic())).pem(), cluster.measurementsKey());
    }

    @Test
    @DisplayName("a set signed by another key while the set in force names no next key is refused: not a single write")
    void otherKeyWithoutRotationRefused() throws Exception {
        KeyPair other = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path signedByOther = cluster.services.signedMeasurements("v2.json", 0x22, other, null);
        int writes = cluster.kube.writes();
        MeasurementsException e = assertThrows(MeasurementsException.class, () -> upgrade(() -> { })
                .upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.of(SignedMeasurementsFile.read(signedByOther)),
                        Duration.ofMinutes(5), false)));
        assertTrue(e.getMessage().contains("is not a valid signature"), e.getMessage());
        assertEquals(writes, cluster.kube.writes());
    }

    @Test
    @DisplayName("the next key's set whose rollout times out is rolled back with the key: the ConfigMap holds the cluster's key again")
    void rotationRolledBackWithTheKey() throws Exception {
        KeyPair next = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        String clusterKey = cluster.measurementsKey();
        Path rotating = cluster.services.signedMeasurements("v2.json", 0x22, cluster.services.measurementsKey(), next.getPublic());
        upgrade(() -> cluster.controller.rolledOut(ClusterServices.JOIN_DAEMONSET))
                .upgrade(new UpgradeRequest(JOIN_V2, KMS_V2, Optional.of(SignedMeasurementsFile.read(rotating)), Duration.ofMinutes(5), false));
        Map<String, String> before = initialMeasurements();

        Path signedByNext = cluster.services.signedMeasurements("v3.json", 0x33, next, null);
        UpgradeOutcome outcome = upgrade(() -> cluster.controller.stuck(ClusterServices.JOIN_DAEMONSET))
                .upgrade(new UpgradeRequest(TestServices.JOIN_IMAGE, TestServices.KMS_IMAGE,
                        Optional.of(SignedMeasurementsFile.read(signedByNext)), Duration.ofSeconds(4), false));
        assertEquals(UpgradeOutcome.Result.ROLLED_BACK, outcome.result(), outcome.message());
        assertTrue(outcome.message().contains("and measurements and measurements key"), outcome.message());
        assertEquals(before, cluster.joinConfig());
        assertEquals(clusterKey, cluster.measurementsKey());
    }
}
