package dev.sextant.measuredboot.pe;

import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.testing.Tools;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("A malformed PE image")
class MalformedPeTest {
    private byte[] good;
    private int peOff;
    private int optOff;

    @BeforeEach
    void load() throws Exception {
        Path stub = Path.of(Tools.STUB_DIR, "linuxx64.efi.stub");
        if (!Files.exists(stub)) {
            Tools.skip(stub + " is not installed (systemd-boot-efi)");
        }
        good = Files.readAllBytes(stub);
        peOff = le(good).getInt(0x3C);
        optOff = peOff + 24;
    }

    private static ByteBuffer le(byte[] b) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN); }

    private MalformedImageException rejected(byte[] bytes) {
        return assertTimeoutPreemptively(Duration.ofSeconds(2),
                () -> assertThrows(MalformedImageException.class, () -> Authenticode.sha256(new ArraySource(bytes))));
    }

    @Test
    @DisplayName("that is empty is rejected at byte 0")
    void empty() {
        assertEquals(0, rejected(new byte[0]).offset());
    }

    @Test
    @DisplayName("without the MZ signature is rejected at byte 0")
    void noMz() {
        byte[] b = good.clone();
        b[0] = 'X';
        MalformedImageException e = rejected(b);
        assertEquals(0, e.offset());
        assertTrue(e.getMessage().contains("MZ"), e.getMessage());
    }

    @Test
    @DisplayName("truncated inside its section table is rejected naming the table's offset")
    void truncatedHeaders() {
        MalformedImageException e = rejected(Arrays.copyOf(good, optOff + 250));
        assertTrue(e.getMessage().contains("section table") || e.getMessage().contains("optional header"), e.getMessage());
    }

    @Test
    @DisplayName("truncated inside its section data is rejected naming the section")
    void truncatedData() {
        MalformedImageException e = rejected(Arrays.copyOf(good, good.length - 100));
        assertTrue(e.getMessage().contains("raw data"), e.getMessage());
    }

    @Test
    @DisplayName("whose e_lfanew points past the end is rejected at that offset")
    void peOffsetOutside() {
        byte[] b = good.clone();
        le(b).putInt(0x3C, 0x7FFFFFF0);
        assertEquals(0x7FFFFFF0L, rejected(b).offset());
    }

    @Test
    @DisplayName("claiming 65535 sections is rejected without allocating for them")
    void absurdSectionCount() {
        byte[] b = good.clone();
        le(b).putShort(peOff + 6, (short) 0xFFFF);
        assertTrue(rejected(b).getMessage().contains("section table"));
    }

    @Test
    @DisplayName("with SizeOfHeaders beyond the file is rejected at the field")
    void headersBeyondFile() {
        byte[] b = good.clone();
        le(b).putInt(optOff + 60, 0x7FFFFFFF);
        assertEquals(optOff + 60L, rejected(b).offset());
    }

    @Test
    @DisplayName("with a 4 GiB attribute certificate table is rejected at the table's offset")
    void certTableTooLarge() {
        byte[] b = good.clone();
        int dir = optOff + 112 + 4 * 8;
        le(b).putInt(dir, 0x1000).putInt(dir + 4, 0xFFFFFFF0);
        assertEquals(0x1000, rejected(b).offset());
    }

    @Test
    @DisplayName("with random corruption gives a digest or MalformedImageException, never another throwable, fast")
    void randomCorruption() {
        SplittableRandom rnd = new SplittableRandom(20261122);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            byte[] headerOnly = Arrays.copyOf(good, Math.min(good.length, 64 * 1024));
            for (int i = 0; i < 3000; i++) {
                byte[] b = headerOnly.clone();
                for (int k = 0, n = 1 + rnd.nextInt(8); k < n; k++) {
                    b[rnd.nextInt(Math.min(b.length, 1024))] = (byte) rnd.nextInt(256);
                }
                try {
                    Authenticode.sha256(new ArraySource(b));
                } catch (MalformedImageException expected) {
                    // the one allowed failure
                }
            }
        });
    }
}
