package dev.sextant.localcluster.mini.upgrade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.imagebuilder.EkCaBundle;
import dev.sextant.imagebuilder.ImageBuilder;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.operator.OperatorCommand;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.qemu.ProcessRef;
import dev.sextant.localcluster.rollout.ImageRollout;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What mini upgrade checks before it publishes a set or touches a node; the rollout itself is e2e's. */
@DisplayName("mini upgrade, before anything moves")
class MiniUpgradeTest {
    private static final OperatorCommand MUST_NOT_RUN = (args, out) -> {
        throw new AssertionError("nothing may be published or recovered: " + args);
    };

    @TempDir
    Path dir;
    private MiniLayout layout;
    private final List<String> progress = new ArrayList<>();

    @BeforeEach
    void aClusterOnImageOne() throws Exception {
        layout = new MiniLayout(dir.resolve("mini"));
        Files.createDirectories(layout.dir().resolve("keys"));
        LocalCa.create(layout.caDir(), "mini test EK CA");
        KeyPair key = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Files.writeString(layout.measurementsKey(), pem(key.getPrivate()));
        Files.writeString(layout.measurementsPublicKey(), pem(key.getPublic()));
        Files.write(layout.measurements(), MeasurementSet.of(5, image((byte) 1), "1.0").toJson());
        MeasurementsFile.sign(layout.measurements(), Files.readString(layout.measurementsKey()));
        state(MiniState.UP, ProcessRef.of(ProcessHandle.current(), "java"));
    }

    private void state(String phase, ProcessRef process) throws Exception {
        new MiniState(MiniState.VERSION, phase, "t", "i", "ab".repeat(32), List.of(
                new MiniState.Node("control-plane-0", NodeRole.CONTROL_PLANE, Map.of(9090, 40000), "c", process, process)))
                .write(layout.stateFile());
    }

    /** A build directory as `sextant image build` leaves it, with this cluster's EK CA and no --upgrades-from. */
    private Path build(String version, byte fill) throws Exception {
        Path out = Files.createDirectories(dir.resolve("image-" + version));
        Files.writeString(out.resolve("image.raw"), "disk");
        Files.write(out.resolve(ImageBuilder.MEASUREMENTS), MeasurementSet.of(7, image(fill), version).toJson());
        Files.copy(layout.caCert(), out.resolve(EkCaBundle.OUT_FILE));
        return out;
    }

    private static Measurements image(byte fill) {
        TreeMap<Integer, ExpectedValue> pcrs = new TreeMap<>();
        for (int pcr : List.of(4, 9, 11, 12, 13, 15)) {
            byte[] value = new byte[32];
            if (pcr == 4 || pcr == 9 || pcr == 11) {
                java.util.Arrays.fill(value, fill);
            }
            pcrs.put(pcr, new ExpectedValue(value, false));
        }
        return new Measurements(Variant.QEMU_VTPM, pcrs);
    }

    private String fails(Path image) {
        return assertThrows(MiniFailure.class, () -> new MiniUpgrade(layout, progress::add)
                .upgrade(image, Duration.ofMinutes(1), MUST_NOT_RUN, MUST_NOT_RUN)).getMessage();
    }

    @Test
    @DisplayName("refuses an image that does not list the running one under --upgrades-from: its nodes could not read their disk records")
    void refusesAnImageThatCannotReadTheRecords() throws Exception {
        String message = fails(build("2.0", (byte) 2));
        assertTrue(message.contains("does not list image 1.0") && message.contains("--upgrades-from"), message);
        assertEquals(5, MeasurementsFile.verifySet(layout.measurements(), Files.readString(layout.measurementsPublicKey())).version());
    }

    @Test
    @DisplayName("refuses a cluster that is not up, a directory without a build, and an image the cluster runs already")
    void refusesWhatIsNoUpgrade() throws Exception {
        Path missing = Files.createDirectories(dir.resolve("empty"));
        assertTrue(fails(missing).contains("sextant image build --out " + missing), fails(missing));
        assertTrue(fails(build("1.0", (byte) 1)).contains("admits only image 1.0 already"));
        state(MiniState.STOPPED, null);
        assertTrue(fails(build("2.0", (byte) 2)).contains("is not up"));
    }

    @Test
    @DisplayName("prints one row per node with its old and new version and its power-off to verified time, and what it retired")
    void summary() {
        MiniUpgrade.Done done = new MiniUpgrade.Done("1.0", "2.0", new ImageRollout.Report(
                List.of(new ImageRollout.Moved("control-plane-0", "1.0", "2.0", Duration.ofSeconds(212))), List.of("worker-0")));
        assertEquals(List.of("NODE             FROM  TO   POWER-OFF -> VERIFIED", "control-plane-0  1.0   2.0  212 s",
                "worker-0         2.0   2.0  already on it", "retired: 1.0"), done.render());
    }

    private static String pem(Object key) throws Exception {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(key);
        }
        return text.toString();
    }
}
