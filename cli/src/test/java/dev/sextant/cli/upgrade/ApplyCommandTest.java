package dev.sextant.cli.upgrade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.cli.SextantCommand;
import dev.sextant.clusterservices.ClusterServices;
import dev.sextant.clusterservices.TestServices;
import dev.sextant.clusterservices.UpgradeFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** `sextant upgrade apply` against the Kubernetes API double (a cluster whose services are rolled out). */
class ApplyCommandTest {
    private static final String JOIN_V2 = TestServices.JOIN_IMAGE_V2;
    private static final String KMS_V2 = TestServices.KMS_IMAGE_V2;

    @TempDir
    Path dir;

    private UpgradeFixture cluster;
    private Path kubeconfig;
    private final StringWriter out = new StringWriter();

    @BeforeEach
    void start() throws Exception {
        cluster = new UpgradeFixture(dir);
        kubeconfig = cluster.kube.kubeconfig(dir);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private int sextant(String... args) {
        List<String> all = new ArrayList<>(List.of("upgrade", "apply", "--kubeconfig", kubeconfig.toString()));
        all.addAll(List.of(args));
        return new CommandLine(new SextantCommand()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(out, true))
                .execute(all.toArray(String[]::new));
    }

    @Test
    @DisplayName("a rollout that completes: exit 0, OK, new images and measurements in the cluster")
    void completedRolloutExitsZero() throws Exception {
        Path measurements = cluster.services.signedMeasurements("v2.json", 0x22);
        ScheduledExecutorService controller = Executors.newSingleThreadScheduledExecutor();
        controller.scheduleWithFixedDelay(() -> {
            try {
                cluster.controller.rolledOut(ClusterServices.JOIN_DAEMONSET);
            } catch (Exception e) {
                // the next tick tries again
            }
        }, 200, 200, TimeUnit.MILLISECONDS);
        try {
            int code = sextant("--join-service", JOIN_V2, "--kms", KMS_V2, "--measurements", measurements.toString(), "--timeout", "30s");
            assertEquals(0, code, out.toString());
        } finally {
            controller.shutdownNow();
        }
        assertTrue(out.toString().startsWith("OK: upgraded"), out.toString());
        assertEquals(JOIN_V2, cluster.image(ClusterServices.JOIN_CONTAINER));
        assertEquals(KMS_V2, cluster.image(ClusterServices.KMS_CONTAINER));
        assertEquals(Files.readString(measurements), cluster.joinConfig().get("measurements.json"));
    }

    @Test
    @DisplayName("--no-wait: exit 0 at once with the new images set")
    void noWaitExitsZero() throws Exception {
        int code = sextant("--join-service", JOIN_V2, "--kms", KMS_V2, "--no-wait");

        assertEquals(0, code, out.toString());
        assertTrue(out.toString().contains("rollout not awaited (--no-wait)"), out.toString());
        assertEquals(JOIN_V2, cluster.image(ClusterServices.JOIN_CONTAINER));
    }

    @Test
    @DisplayName("a rollout that does not finish in --timeout: exit 1, ROLLED BACK naming the DaemonSet, old images back")
    void timeoutExitsOneAndRollsBack() throws Exception {
        // No controller runs: the new generation is never observed, as with a broken image.
        int code = sextant("--join-service", JOIN_V2, "--kms", KMS_V2, "--timeout", "1s");

        assertEquals(1, code, out.toString());
        assertTrue(out.toString().startsWith("ROLLED BACK: DaemonSet kube-system/sextant-join-service did not finish its rollout within 1s"),
                out.toString());
        assertEquals(TestServices.JOIN_IMAGE, cluster.image(ClusterServices.JOIN_CONTAINER));
        assertEquals(TestServices.KMS_IMAGE, cluster.image(ClusterServices.KMS_CONTAINER));
    }

    @Test
    @DisplayName("measurements with a signature that does not verify: exit 1, REJECTED, nothing written")
    void badSignatureExitsOneWithoutChanges() throws Exception {
        Map<String, String> before = cluster.joinConfig();
        Path measurements = cluster.services.signedMeasurements("v2.json", 0x22);
        Files.writeString(measurements, TestServices.measurementsJson(0x66));
        int writes = cluster.kube.writes();

        int code = sextant("--join-service", JOIN_V2, "--kms", KMS_V2, "--measurements", measurements.toString());

        assertEquals(1, code, out.toString());
        assertTrue(out.toString().startsWith("REJECTED: the new measurements:"), out.toString());
        assertTrue(out.toString().contains("nothing was changed"), out.toString());
        assertEquals(writes, cluster.kube.writes());
        assertEquals(before, cluster.joinConfig());
        assertEquals(TestServices.JOIN_IMAGE, cluster.image(ClusterServices.JOIN_CONTAINER));
    }

    @Test
    @DisplayName("measurements without FILE.sig: exit 1, REJECTED, naming the missing file")
    void missingSignatureExitsOne() throws Exception {
        Path unsigned = Files.writeString(dir.resolve("unsigned.json"), TestServices.measurementsJson(0x22));

        int code = sextant("--join-service", JOIN_V2, "--kms", KMS_V2, "--measurements", unsigned.toString());

        assertEquals(1, code, out.toString());
        assertTrue(out.toString().contains("unsigned.json.sig does not exist"), out.toString());
    }

    @Test
    @DisplayName("both images are required, exactly as other tools pass them")
    void imagesAreRequired() {
        assertEquals(2, sextant("--join-service", JOIN_V2));
        assertTrue(out.toString().contains("Missing required option: '--kms=IMAGE'"), out.toString());
    }

    @Test
    @DisplayName("an image by tag: exit 1, REJECTED naming the image and how to get its digest, nothing written")
    void imageByTagIsRejected() throws Exception {
        int writes = cluster.kube.writes();
        int code = sextant("--join-service", "127.0.0.1:5000/sextant/join-service:2.0", "--kms", KMS_V2);

        assertEquals(1, code, out.toString());
        assertTrue(out.toString().startsWith("REJECTED: the join service image '127.0.0.1:5000/sextant/join-service:2.0' "
                + "is not pinned by digest"), out.toString());
        assertTrue(out.toString().contains("nothing was changed"), out.toString());
        assertEquals(writes, cluster.kube.writes());
        assertEquals(TestServices.JOIN_IMAGE, cluster.image(ClusterServices.JOIN_CONTAINER));
    }
}
