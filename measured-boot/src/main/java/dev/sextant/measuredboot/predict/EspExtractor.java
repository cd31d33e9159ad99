package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.fat.FatEntry;
import dev.sextant.measuredboot.fat.FatVolume;
import dev.sextant.measuredboot.gpt.GptPartition;
import dev.sextant.measuredboot.gpt.GptReader;
import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Fetches the default boot loader from a raw disk image without mounting it: primary GPT, the
 * (single) EFI System Partition, FAT, then {@code \EFI\BOOT\BOOTX64.EFI} (UEFI 2.10 §3.5.1.1, the
 * removable-media path firmware falls back to).
 */
public final class EspExtractor {
    public static final String DEFAULT_LOADER = "/EFI/BOOT/BOOTX64.EFI";
    private static final int SECTOR = 512;
    private static final int MAX_LOADER_BYTES = 1 << 30;

    private EspExtractor() {
    }

    public static byte[] bootLoader(Path raw) throws MalformedImageException, IOException {
        try (FileSource disk = FileSource.open(raw)) {
            return bootLoader(disk);
        }
    }

    public static byte[] bootLoader(ByteSource disk) throws MalformedImageException, IOException {
        List<GptPartition> esps = GptReader.read(disk, SECTOR).stream().filter(GptPartition::isEsp).toList();
        if (esps.size() != 1) {
            throw new MalformedImageException("GPT", SECTOR, "expected exactly one EFI System Partition, found " + esps.size());
        }
        GptPartition esp = esps.get(0);
        ByteSource part = disk.slice("ESP (partition " + esp.index() + ")", esp.firstLba() * SECTOR,
                (esp.lastLba() - esp.firstLba() + 1) * SECTOR);
        FatVolume fat = FatVolume.open(part);
        FatEntry loader = fat.find(DEFAULT_LOADER).filter(e -> !e.isDirectory()).orElseThrow(() ->
                new MalformedImageException("ESP", esp.firstLba() * SECTOR, DEFAULT_LOADER + " not found"));
        return fat.readFile(loader, MAX_LOADER_BYTES);
    }
}
