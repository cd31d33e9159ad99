package dev.sextant.measuredboot.predict;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.testing.FuzzCorpus;
import dev.sextant.measuredboot.testing.SparseImage;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz target for fetching the boot loader from a disk image (GPT, then the ESP's FAT, then
 * \EFI\BOOT\BOOTX64.EFI), the image given as a {@link SparseImage}: any bytes either yield the
 * loader or raise {@link MalformedImageException}.
 */
class EspFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void bootLoader(byte[] input) throws IOException {
        try {
            EspExtractor.bootLoader(SparseImage.decode(input));
        } catch (MalformedImageException expected) {
            // the one declared rejection
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
            "repart-node-image-layout-uki-stub252, UKI",
            "sgdisk-fat32-esp-uki-stub252, UKI",
            "sgdisk-esp-lower-case-path, PE",
            "sgdisk-fat12-esp, PE",
            "sgdisk-fat12-long-names, PE",
            "sgdisk-fat12-one-fat-8-sector-clusters, PE",
            "sgdisk-fat12-fragmented-and-deleted, 9000 bytes",
            "sgdisk-fat12-empty, none",
            "sgdisk-fat16-esp, PE",
            "sgdisk-fat16-4096-byte-sectors, PE",
            "sgdisk-fat16-nested, PE",
            "sgdisk-fat16-many-root-files, PE",
            "sgdisk-fat32-esp, PE",
            "sgdisk-fat32-long-names, PE"})
    @DisplayName("each committed seed disk yields the boot loader put on its ESP, so the fuzzer starts past GPT and FAT")
    void seedYieldsItsLoader(String seed, String loader) throws Exception {
        SparseImage disk = SparseImage.decode(FuzzCorpus.seed(EspFuzzTest.class, "bootLoader", seed));
        if (loader.equals("none")) {
            MalformedImageException e = assertThrows(MalformedImageException.class,
                    () -> EspExtractor.bootLoader(disk));
            assertTrue(e.getMessage().endsWith(EspExtractor.DEFAULT_LOADER + " not found"), e.getMessage());
            return;
        }
        byte[] bytes = EspExtractor.bootLoader(disk);
        switch (loader) {
            case "UKI" -> assertEquals(PcrPredictor.PCRS.length,
                    new PcrPredictor().predict(new ArraySource(bytes)).pcrs().size());
            case "PE" -> assertEquals("MZ",
                    new String(bytes, 0, 2, StandardCharsets.US_ASCII));
            default -> assertEquals(loader, bytes.length + " bytes");
        }
    }
}
