package dev.sextant.measuredboot.gpt;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.testing.FuzzCorpus;
import dev.sextant.measuredboot.testing.SparseImage;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Fuzz target for the GPT reader on a disk image given as a {@link SparseImage}: any bytes either
 * list partitions that lie inside the disk or raise {@link MalformedImageException}.
 */
class GptFuzzTest {
    private static final int SECTOR = 512;

    @FuzzTest(maxDuration = "60s")
    void read(byte[] input) throws IOException {
        ByteSource disk = SparseImage.decode(input);
        try {
            for (GptPartition p : GptReader.read(disk, SECTOR)) {
                // What EspExtractor does next with the ESP: the reader promised that this fits.
                disk.slice("partition " + p.index(), p.firstLba() * SECTOR, (p.lastLba() - p.firstLba() + 1) * SECTOR);
            }
        } catch (MalformedImageException expected) {
            // the one declared rejection
        }
    }

    @ParameterizedTest(name = "{0}: {1} partitions, {2} ESPs")
    @CsvSource({
            "repart-node-image-layout, 3, 1",
            "sgdisk-esp-fat12, 2, 1",
            "sgdisk-esp-fat16, 2, 1",
            "sgdisk-esp-fat32, 2, 1",
            "sgdisk-16-partitions, 16, 2",
            "sgdisk-32-entry-table, 1, 1",
            "sgdisk-hybrid-mbr, 2, 1",
            "sgdisk-two-esps, 2, 2",
            "sgdisk-unicode-names, 2, 1",
            "sgdisk-no-partitions, 0, 0"})
    @DisplayName("each committed seed disk lists the partitions sgdisk or systemd-repart made, so the fuzzer starts past the CRCs")
    void seedListsItsPartitions(String seed, int partitions, int esps) throws Exception {
        List<GptPartition> read = GptReader.read(SparseImage.decode(FuzzCorpus.seed(GptFuzzTest.class, "read", seed)), SECTOR);
        assertEquals(partitions, read.size());
        assertEquals(esps, read.stream().filter(GptPartition::isEsp).count());
    }
}
