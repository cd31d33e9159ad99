package dev.sextant.cli.measure;

import dev.sextant.attestation.Variant;
import dev.sextant.cli.failure.ExecutionErrorHandler;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.measuredboot.testing.DiskImages;
import dev.sextant.measuredboot.testing.Fixtures;
import dev.sextant.measuredboot.testing.TestPe;
import dev.sextant.measuredboot.testing.Tools;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("sextant measure")
class MeasureCommandTest {
    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new MeasureCommand()).setExecutionExceptionHandler(new ExecutionErrorHandler()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    @DisplayName("authenticode prints the digest as 64 lowercase hex characters and nothing else")
    void authenticode() throws Exception {
        Path pe = tmp.resolve("x.efi");
        Files.write(pe, TestPe.build(List.of(TestPe.Sec.of(".text", "code"))));
        Run r = run("authenticode", pe.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().matches("[0-9a-f]{64}\\R"), r.out());
    }

    @Test
    @DisplayName("uki --measurements prints the policy JSON the verifiers parse, PCR 4, 9, 11, 12, 13 and 15 enforced")
    void measurementsPolicy() throws Exception {
        byte[] kernel = TestPe.build(List.of(TestPe.Sec.of(".text", "kernel")));
        Path uki = tmp.resolve("uki.efi");
        Files.write(uki, TestPe.build(List.of(new TestPe.Sec(".linux", kernel, kernel.length),
                TestPe.Sec.of(".cmdline", "quiet"), TestPe.Sec.of(".sdmagic", TestPe.sdmagic(252)))));
        Run r = run("uki", "--measurements", uki.toString());
        assertEquals(0, r.exit(), r.err());
        Measurements m = Measurements.parse(r.out().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(Variant.QEMU_VTPM, m.variant());
        assertEquals(List.of(4, 9, 11, 12, 13, 15), List.copyOf(m.measurements().keySet()));
        assertTrue(m.measurements().values().stream().noneMatch(v -> v.warnOnly()));
        assertTrue(r.out().contains("\"variant\""), r.out());
    }

    @Test
    @DisplayName("a malformed input exits 2 with one line naming the command, the file, the offset and what to pass")
    void malformed() throws Exception {
        Path bad = tmp.resolve("bad.efi");
        Files.write(bad, new byte[] {'M', 'Z', 0});
        Run r = run("uki", bad.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("measure uki: " + bad + ": malformed (MS-DOS header at byte 0"), r.err());
        assertTrue(r.err().strip().endsWith("): pass a unified kernel image (.efi)"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertEquals("", r.out());
    }

    @Test
    @Tag("peer")
    @DisplayName("uki and image print the same {\"4\",\"9\",\"11\"} JSON for a UKI and for a disk image holding it")
    void ukiAndImage() throws Exception {
        Path uki = Fixtures.ukify(tmp, Fixtures.kernel(), null, "console=ttyS0", "ID=test\n");
        Run fromUki = run("uki", uki.toString());
        assertEquals(0, fromUki.exit(), fromUki.err());
        assertTrue(fromUki.out().replaceAll("\\s", "").matches(
                "\\{\"4\":\"[0-9a-f]{64}\",\"9\":\"[0-9a-f]{64}\",\"11\":\"[0-9a-f]{64}\"}"), fromUki.out());
        Tools.require("mkfs.vfat", "sgdisk");
        Path disk = DiskImages.gptDisk(tmp, DiskImages.fat(tmp, 32, 69632, Map.of("EFI/BOOT/BOOTX64.EFI", Files.readAllBytes(uki))));
        Run fromImage = run("image", disk.toString());
        assertEquals(0, fromImage.exit(), fromImage.err());
        assertEquals(fromUki.out(), fromImage.out());
    }
}
