package dev.sextant.measuredboot.fat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.testing.FuzzCorpus;
import dev.sextant.measuredboot.testing.SparseImage;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz target for the FAT reader on a volume given as a {@link SparseImage}: it looks up the
 * default boot loader and walks the tree reading every file; any bytes either read or raise
 * {@link MalformedImageException}.
 */
class FatFuzzTest {
    /** The walk's own bounds: a directory may name itself or its parent, and the FAT does not forbid it. */
    private static final int MAX_DEPTH = 6;
    private static final int MAX_ENTRIES = 512;
    private static final int MAX_FILE = 1 << 20;

    @FuzzTest(maxDuration = "60s")
    void read(byte[] input) throws IOException {
        try {
            FatVolume fat = FatVolume.open(SparseImage.decode(input));
            fat.find("/EFI/BOOT/BOOTX64.EFI");
            walk(fat, fat.rootDirectory(), 0, new int[1]);
        } catch (MalformedImageException expected) {
            // the one declared rejection
        }
    }

    private static void walk(FatVolume fat, List<FatEntry> entries, int depth, int[] visited)
            throws MalformedImageException, IOException {
        for (FatEntry e : entries) {
            if (++visited[0] > MAX_ENTRIES) {
                return;
            }
            if (e.isDirectory()) {
                if (depth < MAX_DEPTH && !e.shortName().equals(".") && !e.shortName().equals("..")) {
                    walk(fat, fat.directory(e), depth + 1, visited);
                }
            } else if (e.size() <= MAX_FILE) {
                fat.readFile(e, MAX_FILE);
            }
        }
    }

    @ParameterizedTest(name = "{0}: {1} {2}, loader {3}")
    @CsvSource({
            "fat12-esp, FAT12, 512, PE",
            "fat12-long-names, FAT12, 512, PE",
            "fat12-one-fat-8-sector-clusters, FAT12, 512, PE",
            "fat12-fragmented-and-deleted, FAT12, 512, 9000 bytes",
            "fat12-empty, FAT12, 512, none",
            "fat16-esp, FAT16, 512, PE",
            "fat16-4096-byte-sectors, FAT16, 4096, PE",
            "fat16-nested, FAT16, 512, PE",
            "fat16-many-root-files, FAT16, 512, PE",
            "fat32-esp, FAT32, 512, PE",
            "fat32-esp-uki-stub252, FAT32, 512, PE",
            "fat32-long-names, FAT32, 512, PE"})
    @DisplayName("each committed seed volume opens as the FAT type mkfs.vfat made and holds the loader mtools copied")
    void seedHoldsItsLoader(String seed, String type, int sectorBytes, String loader) throws Exception {
        FatVolume fat = FatVolume.open(SparseImage.decode(FuzzCorpus.seed(FatFuzzTest.class, "read", seed)));
        assertEquals(type, fat.type());
        assertEquals(sectorBytes, fat.geometry().bytesPerSector());
        Optional<FatEntry> entry = fat.find("/EFI/BOOT/BOOTX64.EFI");
        if (loader.equals("none")) {
            assertTrue(entry.isEmpty());
            return;
        }
        byte[] bytes = fat.readFile(entry.orElseThrow(), MAX_FILE);
        if (loader.equals("PE")) {
            assertEquals("MZ", new String(bytes, 0, 2, StandardCharsets.US_ASCII));
        } else {
            assertEquals(loader, bytes.length + " bytes");
        }
    }
}
