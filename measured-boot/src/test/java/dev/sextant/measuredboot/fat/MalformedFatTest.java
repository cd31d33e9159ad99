package dev.sextant.measuredboot.fat;

import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.testing.DiskImages;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("peer")
@DisplayName("A FAT volume")
class MalformedFatTest {
    private static final byte[] PAYLOAD = new byte[50_000];

    @TempDir
    Path tmp;

    private byte[] volume(int bits, int kib) throws Exception {
        return Files.readAllBytes(DiskImages.fat(tmp, bits, kib, Map.of("EFI/BOOT/BOOTX64.EFI", PAYLOAD,
                "A rather long file name.txt", "long names work".getBytes(StandardCharsets.US_ASCII))));
    }

    /** Points the FAT entry of {@code cluster} at {@code next}, in every FAT copy's first copy. */
    private static void setFat(byte[] vol, FatGeometry g, long cluster, long next) {
        ByteBuffer b = ByteBuffer.wrap(vol).order(ByteOrder.LITTLE_ENDIAN);
        int base = (int) g.fatOffset();
        switch (g.type()) {
            case FAT12 -> {
                int at = base + (int) (cluster + cluster / 2);
                int v = (b.get(at) & 0xFF) | ((b.get(at + 1) & 0xFF) << 8);
                v = (cluster & 1) == 1 ? (v & 0x000F) | ((int) next << 4) : (v & 0xF000) | (int) next;
                b.put(at, (byte) v).put(at + 1, (byte) (v >>> 8));
            }
            case FAT16 -> b.putShort(base + (int) cluster * 2, (short) next);
            case FAT32 -> b.putInt(base + (int) cluster * 4, (int) next);
        }
    }

    @ParameterizedTest(name = "FAT{0}")
    @CsvSource({"12, 2048", "16, 32768", "32, 69632"})
    @DisplayName("with a cluster chain looping back on itself is rejected quickly, naming the cluster")
    void loop(int bits, int kib) throws Exception {
        byte[] vol = volume(bits, kib);
        FatVolume v = FatVolume.open(new ArraySource(vol));
        assertEquals("FAT" + bits, v.type());
        FatEntry f = v.find("/efi/boot/bootx64.efi").orElseThrow();
        setFat(vol, v.geometry(), f.firstCluster() + 1, f.firstCluster());
        FatVolume broken = FatVolume.open(new ArraySource(vol));
        MalformedImageException e = assertTimeoutPreemptively(Duration.ofSeconds(2), () ->
                assertThrows(MalformedImageException.class, () -> broken.readFile(f, 1 << 20)));
        assertTrue(e.getMessage().contains("reached twice"), e.getMessage());
    }

    @Test
    @DisplayName("whose chain ends before the file size is rejected")
    void shortChain() throws Exception {
        byte[] vol = volume(16, 32768);
        FatVolume v = FatVolume.open(new ArraySource(vol));
        FatEntry f = v.find("/EFI/BOOT/BOOTX64.EFI").orElseThrow();
        setFat(vol, v.geometry(), f.firstCluster(), 0xFFFF);
        MalformedImageException e = assertThrows(MalformedImageException.class,
                () -> FatVolume.open(new ArraySource(vol)).readFile(f, 1 << 20));
        assertTrue(e.getMessage().contains("chain ends after"), e.getMessage());
    }

    @Test
    @DisplayName("whose chain points outside the data region is rejected")
    void outOfRange() throws Exception {
        byte[] vol = volume(32, 69632);
        FatVolume v = FatVolume.open(new ArraySource(vol));
        FatEntry f = v.find("/EFI/BOOT/BOOTX64.EFI").orElseThrow();
        setFat(vol, v.geometry(), f.firstCluster(), 0x0FFFFFF0L);
        MalformedImageException e = assertThrows(MalformedImageException.class,
                () -> FatVolume.open(new ArraySource(vol)).readFile(f, 1 << 20));
        assertTrue(e.getMessage().contains("outside"), e.getMessage());
    }

    @Test
    @DisplayName("finds files by VFAT long name, case-insensitively, and by 8.3 name")
    void longNames() throws Exception {
        FatVolume v = FatVolume.open(new ArraySource(volume(12, 2048)));
        FatEntry f = v.find("/A RATHER long file name.TXT").orElseThrow();
        assertEquals("A rather long file name.txt", f.longName());
        assertArrayEquals("long names work".getBytes(StandardCharsets.US_ASCII), v.readFile(f, 100));
        assertTrue(v.find("/" + f.shortName()).isPresent(), f.shortName());
        assertTrue(v.find("/EFI/BOOT/MISSING.EFI").isEmpty());
    }

    @Test
    @DisplayName("with a boot sector claiming more sectors than the partition holds is rejected at TotSec")
    void tooManySectors() throws Exception {
        byte[] vol = volume(16, 32768);
        ByteBuffer.wrap(vol).order(ByteOrder.LITTLE_ENDIAN).putShort(19, (short) 0).putInt(32, 0x7FFFFFFF);
        MalformedImageException e = assertThrows(MalformedImageException.class, () -> FatVolume.open(new ArraySource(vol)));
        assertEquals(19, e.offset());
    }

    @Test
    @DisplayName("with random corruption of its metadata gives the file or MalformedImageException, never another throwable, fast")
    void randomCorruption() throws Exception {
        byte[] good = volume(12, 2048);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(20261122);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (int i = 0; i < 2000; i++) {
                byte[] vol = good.clone();
                for (int k = 0, n = 1 + rnd.nextInt(16); k < n; k++) {
                    vol[rnd.nextInt(64 * 1024)] = (byte) rnd.nextInt(256);
                }
                try {
                    FatVolume v = FatVolume.open(new ArraySource(vol));
                    var f = v.find("/EFI/BOOT/BOOTX64.EFI");
                    if (f.isPresent() && !f.get().isDirectory()) {
                        v.readFile(f.get(), 1 << 20);
                    }
                } catch (MalformedImageException expected) {
                    // the one allowed failure
                }
            }
        });
    }

    @Test
    @DisplayName("refuses to read a file larger than the caller's limit")
    void sizeLimit() throws Exception {
        FatVolume v = FatVolume.open(new ArraySource(volume(12, 2048)));
        FatEntry f = v.find("/EFI/BOOT/BOOTX64.EFI").orElseThrow();
        assertThrows(MalformedImageException.class, () -> v.readFile(f, 1000));
    }
}
