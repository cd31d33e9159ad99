package dev.sextant.measuredboot.gpt;

import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.predict.EspExtractor;
import dev.sextant.measuredboot.testing.DiskImages;
import dev.sextant.measuredboot.testing.Tools;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("peer")
@DisplayName("Reading a GPT disk image without mounting it")
class GptEspExtractionTest {
    @TempDir
    Path tmp;

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new SplittableRandom(n).nextBytes(b);
        return b;
    }

    private Path disk(int bits, int kib, byte[] loader) throws Exception {
        return DiskImages.gptDisk(tmp, DiskImages.fat(tmp, bits, kib, Map.of("EFI/BOOT/BOOTX64.EFI", loader)));
    }

    @ParameterizedTest(name = "FAT{0}")
    @CsvSource({"12, 2048", "16, 32768", "32, 69632"})
    @DisplayName("fetches \\EFI\\BOOT\\BOOTX64.EFI from the ESP byte for byte, as mcopy reads it")
    void extractsLoader(int bits, int kib) throws Exception {
        byte[] loader = random(300_000 + bits);
        Path disk = disk(bits, kib, loader);
        assertArrayEquals(loader, EspExtractor.bootLoader(disk));
        Tools.require("mcopy");
        Path viaMtools = tmp.resolve("mtools.efi");
        Tools.run(tmp, "mcopy", "-i", disk + "@@" + DiskImages.ESP_OFFSET, "::/EFI/BOOT/BOOTX64.EFI", viaMtools.toString()).ok();
        assertArrayEquals(Files.readAllBytes(viaMtools), EspExtractor.bootLoader(disk));
    }

    @Test
    @DisplayName("lists the partitions exactly as sgdisk reports them")
    void partitionsMatchSgdisk() throws Exception {
        Path disk = disk(16, 32768, random(1000));
        List<GptPartition> parts;
        try (FileSource src = FileSource.open(disk)) {
            parts = GptReader.read(src, 512);
        }
        assertEquals(2, parts.size());
        for (GptPartition p : parts) {
            String info = Tools.run(tmp, "sgdisk", "-i", Integer.toString(p.index()), disk.toString()).ok().out();
            assertTrue(info.contains("First sector: " + p.firstLba() + " "), info);
            assertTrue(info.contains("Last sector: " + p.lastLba() + " "), info);
            assertTrue(info.contains(p.unique().toString().toUpperCase(Locale.ROOT)), info);
            assertTrue(info.contains(p.type().toString().toUpperCase(Locale.ROOT)), info);
        }
        assertTrue(parts.get(0).isEsp());
        assertEquals("esp", parts.get(0).name());
    }

    @Test
    @DisplayName("rejects a header whose CRC32 does not match, naming the CRC field")
    void headerCrc() throws Exception {
        byte[] d = Files.readAllBytes(disk(12, 2048, random(1000)));
        d[512 + 40] ^= 1; // FirstUsableLBA
        MalformedImageException e = assertThrows(MalformedImageException.class, () -> GptReader.read(new ArraySource(d), 512));
        assertEquals(512 + 16, e.offset());
    }

    @Test
    @DisplayName("rejects a partition entry array whose CRC32 does not match")
    void entriesCrc() throws Exception {
        byte[] d = Files.readAllBytes(disk(12, 2048, random(1000)));
        d[1024 + 32] ^= 1; // StartingLBA of entry 1
        MalformedImageException e = assertThrows(MalformedImageException.class, () -> GptReader.read(new ArraySource(d), 512));
        assertEquals(1024, e.offset());
        assertTrue(e.getMessage().contains("CRC32"));
    }

    @Test
    @DisplayName("rejects an image without an EFI System Partition")
    void noEsp() throws Exception {
        Path disk = disk(12, 2048, random(1000));
        Tools.run(tmp, "sgdisk", "-t", "1:8300", disk.toString()).ok();
        MalformedImageException e = assertThrows(MalformedImageException.class, () -> EspExtractor.bootLoader(disk));
        assertTrue(e.getMessage().contains("found 0"), e.getMessage());
    }

    @Test
    @DisplayName("rejects an image truncated inside the ESP")
    void truncated() throws Exception {
        byte[] d = Files.readAllBytes(disk(12, 2048, random(1000)));
        byte[] cut = Arrays.copyOf(d, (int) DiskImages.ESP_OFFSET + 4096);
        assertThrows(MalformedImageException.class, () -> EspExtractor.bootLoader(new ArraySource(cut)));
    }

    @Test
    @DisplayName("rejects a header claiming a huge partition entry array without allocating it")
    void absurdEntryArray() throws Exception {
        byte[] d = Files.readAllBytes(disk(12, 2048, random(1000)));
        ByteBuffer h = ByteBuffer.wrap(d, 512, 512).slice().order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(80, 0x7FFFFFFF);
        h.putInt(16, 0);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(d, 512, h.getInt(12));
        h.putInt(16, (int) crc.getValue());
        MalformedImageException e = assertThrows(MalformedImageException.class, () -> GptReader.read(new ArraySource(d), 512));
        assertEquals(512 + 80, e.offset());
    }
}
