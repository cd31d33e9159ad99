package dev.sextant.imagebuilder;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("--upgrades-from: the earlier images whose nodes' disk records an image accepts, and the upgrade-path check")
class UpgradePathTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("an earlier build's writer digest is SHA-256 over its predicted PCRs 4, 9, 11, 12, 13 and a zero PCR 15, as its node computed it")
    void writerAsTheNodeComputesIt() throws Exception {
        Path a = build("a", "1.0.0", (byte) 1, true);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int pcr : List.of(4, 9, 11, 12, 13)) {
            sha.update(pcrValue(pcr, (byte) 1));
        }
        sha.update(new byte[32]);
        assertEquals(new Predecessor("1.0.0", HexFormat.of().formatHex(sha.digest())), Predecessor.of(a));
    }

    @Test
    @DisplayName("a format-1 measurement file (before sets) names its image by the directory's image-version file")
    void formatOne() throws Exception {
        Path a = build("a", "1.0.0", (byte) 1, false);
        assertEquals("1.0.0", Predecessor.of(a).imageVersion());
        assertEquals(Predecessor.of(build("a2", "1.0.0", (byte) 1, true)).writer(), Predecessor.of(a).writer());
    }

    @Test
    @DisplayName("a directory without measurements is refused naming what to pass")
    void notABuild() {
        BuildException e = assertThrows(BuildException.class, () -> UpgradesFrom.read(List.of(dir)));
        assertTrue(e.getMessage().contains("--upgrades-from " + dir) && e.getMessage().contains("earlier `sextant image build`"),
                e.getMessage());
    }

    @Test
    @DisplayName("the image holds the writers in node-boot's settings file; another list stages another tree, so a build with it is not reused")
    void intoTheImage() throws Exception {
        UpgradesFrom one = UpgradesFrom.read(List.of(build("a", "1.0.0", (byte) 1, true)));
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.NONE, one);
        String settings = Files.readString(tree.resolve(UpgradesFrom.NODE_SETTINGS));
        assertTrue(settings.contains("predecessor-writers:\n      # image 1.0.0\n      - \"" + one.images().get(0).writer() + "\""), settings);
        String withOne = InputDigest.of(List.of(tree), List.of());

        NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.NONE, UpgradesFrom.NONE);
        assertTrue(Files.readString(tree.resolve(UpgradesFrom.NODE_SETTINGS)).contains("predecessor-writers: []"));
        assertNotEquals(withOne, InputDigest.of(List.of(tree), List.of()));
    }

    @Test
    @DisplayName("an image built --upgrades-from A can upgrade A's nodes; one that does not list A is refused up front, naming A's writer and the fix")
    void upgradePath() throws Exception {
        Path a = build("a", "1.0.0", (byte) 1, true);
        Path b = build("b", "1.1.0", (byte) 2, true);
        Path c = build("c", "1.2.0", (byte) 3, true);
        UpgradesFrom.read(List.of(a)).store(b);
        assertTrue(UpgradePath.lists(b, a));
        assertTrue(UpgradePath.lists(a, a), "the same image");
        assertFalse(UpgradePath.lists(c, a), "c lists nothing");
        UpgradesFrom.read(List.of(b)).store(c);
        assertTrue(UpgradePath.lists(c, b));
        String why = UpgradePath.refusal(c, a).orElseThrow();
        assertTrue(why.contains("image 1.2.0") && why.contains("does not list image 1.0.0")
                && why.contains(Predecessor.of(a).writer()) && why.contains("--upgrades-from " + a), why);
    }

    @Test
    @DisplayName("DIR/upgrades-from reads back as stored; the same image named twice is listed once")
    void storedFile() throws Exception {
        Path a = build("a", "1.0.0", (byte) 1, true);
        Path again = build("a-again", "1.0.0", (byte) 1, true);
        UpgradesFrom list = UpgradesFrom.read(List.of(a, again, build("b", "1.1.0", (byte) 2, true)));
        assertEquals(2, list.images().size());
        Path out = Files.createDirectories(dir.resolve("out"));
        list.store(out);
        assertEquals(list, UpgradesFrom.stored(out));
        assertEquals(UpgradesFrom.NONE, UpgradesFrom.stored(dir.resolve("never-built")));
    }

    /** What a build leaves in its output directory: measurements.json (format 2 or 1) and image-version. */
    private Path build(String name, String version, byte fill, boolean formatTwo) throws Exception {
        Path out = Files.createDirectories(dir.resolve(name));
        TreeMap<Integer, ExpectedValue> pcrs = new TreeMap<>();
        for (int pcr : List.of(4, 9, 11, 12, 13, 15)) {
            pcrs.put(pcr, new ExpectedValue(pcrValue(pcr, fill), false));
        }
        Measurements measurements = new Measurements(Variant.QEMU_VTPM, pcrs);
        byte[] json = formatTwo ? MeasurementSet.of(1, measurements, version).toJson()
                : measurements.toJson();
        Files.write(out.resolve(ImageBuilder.MEASUREMENTS), json);
        Files.writeString(out.resolve(ImageVersion.OUT_FILE), version + "\n");
        return out;
    }

    /** PCRs 4, 9 and 11 differ per image; 12, 13 and 15 are zero, as an image's predicted values are. */
    private static byte[] pcrValue(int pcr, byte fill) {
        byte[] value = new byte[32];
        if (pcr == 4 || pcr == 9 || pcr == 11) {
            java.util.Arrays.fill(value, (byte) (fill * pcr));
        }
        return value;
    }
}
