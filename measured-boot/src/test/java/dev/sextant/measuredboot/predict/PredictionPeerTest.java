package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.testing.DiskImages;
import dev.sextant.measuredboot.testing.Fixtures;
import dev.sextant.measuredboot.testing.Tools;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Predictions for UKIs built by the host's ukify, against independent tools: systemd-measure for
 * PCR 11 (fed the sections as objcopy dumps them, listed by objdump), pesign for the two
 * Authenticode events of PCR 4.
 */
@Tag("peer")
@DisplayName("The prediction of a real UKI")
class PredictionPeerTest {
    private static final HexFormat HEX = HexFormat.of();

    @TempDir
    static Path tmp;
    static Path kernel;
    static Path initrd;

    @BeforeAll
    static void inputs() throws Exception {
        Tools.require(Tools.UKIFY, Tools.MEASURE, "objcopy", "objdump", "pesign");
        kernel = Fixtures.kernel();
        initrd = tmp.resolve("initrd.img");
        byte[] b = new byte[200_003];
        new SplittableRandom(7).nextBytes(b);
        Files.write(initrd, b);
    }

    private static Path uki(String... extra) throws Exception {
        return Fixtures.ukify(tmp, kernel, initrd, "console=ttyS0 root=/dev/vda2 ro quiet\n",
                "ID=sextant\nVERSION_ID=1\n", extra);
    }

    private static Prediction predict(Path uki) throws Exception {
        try (FileSource src = FileSource.open(uki)) {
            return new PcrPredictor().predict(src);
        }
    }

    /** systemd-measure over exactly the sections this stub release measures, as objcopy extracts them. */
    private static String systemdMeasure(Path uki, StubVersion stub) throws Exception {
        String headers = Tools.run(tmp, "objdump", "-h", uki.toString()).ok().out();
        List<String> cmd = new ArrayList<>(List.of(Tools.MEASURE, "calculate", "--bank=sha256", "--phase="));
        for (UkiSection s : UkiSection.values()) {
            if (s.measuredBy(stub) && headers.contains(" " + s.sectionName() + " ")) {
                Path dump = tmp.resolve("dump" + s.sectionName());
                Tools.run(tmp, "objcopy", "--dump-section", s.sectionName() + "=" + dump, uki.toString(),
                        tmp.resolve("discard.efi").toString()).ok();
                cmd.add("--" + s.sectionName().substring(1) + "=" + dump);
            }
        }
        Matcher m = Pattern.compile("11:sha256=([0-9a-f]{64})").matcher(Tools.run(tmp, cmd.toArray(String[]::new)).ok().out());
        assertTrue(m.find(), "systemd-measure printed PCR 11");
        return m.group(1);
    }

    private static byte[] pesign(Path file) throws Exception {
        Matcher m = Pattern.compile("hash: ([0-9a-f]{64})").matcher(Tools.run(tmp, "pesign", "-h", "-i", file.toString()).ok().out());
        assertTrue(m.find());
        return HEX.parseHex(m.group(1));
    }

    private static void assertPcr11(Path uki) throws Exception {
        Prediction p = predict(uki);
        assertEquals(systemdMeasure(uki, p.stub()), HEX.formatHex(p.pcr(11)), "stub " + p.stub().full());
    }

    @Test
    @DisplayName("PCR 11 equals systemd-measure for kernel, initrd, cmdline and os-release (ukify 254 adds .uname and .sbat)")
    void pcr11Default() throws Exception {
        Path uki = uki();
        assertEquals(254, predict(uki).stub().major());
        assertPcr11(uki);
    }

    @Test
    @DisplayName("PCR 11 equals systemd-measure with a splash image and a devicetree added")
    void pcr11SplashDtb() throws Exception {
        Path bmp = tmp.resolve("splash.bmp");
        Files.write(bmp, HEX.parseHex("424d46000000000000003600000028000000020000000200000001001800000000001000000013"
                + "0b0000130b00000000000000000000" + "0000ff0000ff0000" + "0000ff0000ff0000"));
        Path dtb = tmp.resolve("board.dtb");
        Files.write(dtb, new byte[] {(byte) 0xd0, 0x0d, (byte) 0xfe, (byte) 0xed, 1, 2, 3});
        assertPcr11(uki("--splash=" + bmp, "--devicetree=" + dtb));
    }

    @Test
    @DisplayName("PCR 11 equals systemd-measure for a kernel-only UKI (no initrd, no cmdline)")
    void pcr11KernelOnly() throws Exception {
        assertPcr11(Fixtures.ukify(tmp, kernel, null, null, null));
    }

    @Test
    @DisplayName("PCR 11 for bookworm's stub 252 leaves out .uname and .sbat, and still equals systemd-measure over what 252 measures")
    void pcr11Stub252() throws Exception {
        Path uki = uki("--stub=" + Fixtures.stub252());
        Prediction p = predict(uki);
        assertEquals(252, p.stub().major());
        assertTrue(p.events().stream().noneMatch(e -> e.description().contains(".uname") || e.description().contains(".sbat")));
        assertPcr11(uki);
    }

    @Test
    @DisplayName("PCR 4 is the action, the separator, then pesign's hashes of the UKI and of its .linux")
    void pcr4() throws Exception {
        Path uki = uki();
        Path linux = tmp.resolve("linux.dump");
        Tools.run(tmp, "objcopy", "--dump-section", ".linux=" + linux, uki.toString(), tmp.resolve("discard.efi").toString()).ok();
        PcrBank expected = new PcrBank(4);
        expected.extend(4, HEX.parseHex("3d6772b4f84ed47595d72a2c4c5ffd15f5bb72c7507fe26f2aaee2c69d5633ba"), "action");
        expected.extend(4, HEX.parseHex("df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119"), "separator");
        expected.extend(4, pesign(uki), "uki");
        expected.extend(4, pesign(linux), "kernel");
        assertEquals(HEX.formatHex(expected.value(4)), HEX.formatHex(predict(uki).pcr(4)));
    }

    @Test
    @DisplayName("predicting from a disk image gives the same values as predicting from its UKI")
    void imageEqualsUki() throws Exception {
        Path uki = uki();
        Path esp = DiskImages.fat(tmp, 32, 69632, Map.of("EFI/BOOT/BOOTX64.EFI", Files.readAllBytes(uki)));
        Path disk = DiskImages.gptDisk(tmp, esp);
        Prediction fromImage = new PcrPredictor().predictImage(disk);
        Prediction fromUki = predict(uki);
        for (int pcr : PcrPredictor.PCRS) {
            assertEquals(HEX.formatHex(fromUki.pcr(pcr)), HEX.formatHex(fromImage.pcr(pcr)), "PCR " + pcr);
        }
    }
}
