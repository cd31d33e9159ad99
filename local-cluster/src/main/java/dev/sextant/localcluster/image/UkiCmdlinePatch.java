package dev.sextant.localcluster.image;

import dev.sextant.measuredboot.gpt.GptPartition;
import dev.sextant.measuredboot.gpt.GptReader;
import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.pe.PeFile;
import dev.sextant.measuredboot.pe.PeParser;
import dev.sextant.measuredboot.pe.PeSection;
import dev.sextant.localcluster.qemu.HostTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes a copy of a node image whose UKI differs only in its {@code .cmdline} section: the UKI is
 * taken off the ESP with mtools, one option is rewritten in place (same length, padded with
 * spaces, so no other byte of the PE moves), and the UKI is written back with {@code mcopy -o}.
 * The partitions, the verity root and the firmware are untouched, so exactly the PCRs that
 * measure the UKI (4: its Authenticode hash; 9 and 11: the command line) change.
 */
public final class UkiCmdlinePatch {
    private static final String UKI = "::/EFI/BOOT/BOOTX64.EFI";
    private static final int SECTOR = 512;

    private UkiCmdlinePatch() {}

    /** Skip reason when mtools is absent (empty when present). */
    public static List<String> missingTools() {
        return HostTools.onPath("mcopy").isPresent() ? List.of() : List.of("mcopy not on PATH (Debian package mtools)");
    }

    /** Copies {@code image} to {@code copy} and replaces {@code from} by {@code to} in the copy's UKI command line. */
    public static void copyWithCmdline(Path image, Path copy, String from, String to) throws Exception {
        if (to.length() > from.length()) {
            throw new IllegalArgumentException("the replacement must not be longer than \"" + from + "\"");
        }
        Files.createDirectories(copy.toAbsolutePath().getParent());
        Files.copy(image, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        String target = copy.toAbsolutePath() + "@@" + espOffset(copy);
        Path uki = copy.resolveSibling(copy.getFileName() + ".BOOTX64.EFI");
        Files.deleteIfExists(uki);
        run(List.of("mcopy", "-n", "-i", target, UKI, uki.toString()));
        byte[] bytes = Files.readAllBytes(uki);
        patch(bytes, from, to + " ".repeat(from.length() - to.length()));
        Files.write(uki, bytes);
        run(List.of("mcopy", "-o", "-i", target, uki.toString(), UKI));
        Files.delete(uki);
    }

    private static void patch(byte[] uki, String from, String to) throws Exception {
        PeFile pe = PeParser.parse(new ArraySource(uki));
        PeSection cmdline = pe.section(".cmdline")
                .orElseThrow(() -> new IOException("the UKI has no .cmdline section"));
        int start = Math.toIntExact(cmdline.pointerToRawData());
        int length = Math.toIntExact(Math.min(cmdline.virtualSize(), cmdline.sizeOfRawData()));
        String text = new String(uki, start, length, StandardCharsets.ISO_8859_1);
        int at = text.indexOf(from);
        if (at < 0 || text.indexOf(from, at + 1) >= 0) {
            throw new IOException("\"" + from + "\" does not occur exactly once in the UKI command line: " + text.strip());
        }
        byte[] replacement = to.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(replacement, 0, uki, start + at, replacement.length);
    }

    private static long espOffset(Path image) throws Exception {
        try (FileSource disk = FileSource.open(image)) {
            GptPartition esp = GptReader.read(disk, SECTOR).stream().filter(GptPartition::isEsp).findFirst()
                    .orElseThrow(() -> new IOException(image + " has no EFI System Partition"));
            return esp.firstLba() * SECTOR;
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // mkosi's ESP geometry is not a floppy's; without this mtools refuses it as "not a multiple of sectors per track".
        builder.environment().put("MTOOLS_SKIP_CHECK", "1");
        Process p = builder.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output.strip());
        }
    }
}
