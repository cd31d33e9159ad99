package dev.sextant.measuredboot.testing;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("The sparse image form of the disk and volume fuzz seeds")
class SparseImageTest {

    @Test
    @DisplayName("decodes what it encoded byte for byte: zero runs of every length, runs longer than a chunk, a non-zero end")
    void roundTrip() throws IOException {
        byte[] image = new byte[300_000];
        SplittableRandom random = new SplittableRandom(35);
        for (int at = 1; at < image.length; at += 1 + random.nextInt(2000)) {
            int run = random.nextInt(at % 7 == 0 ? 70_000 : 64);
            for (int i = at; i < Math.min(image.length, at + run); i++) {
                image[i] = (byte) (1 + random.nextInt(255));
            }
        }
        image[image.length - 1] = 9;
        SparseImage decoded = SparseImage.decode(SparseImage.encode(image));
        byte[] back = new byte[image.length];
        decoded.readFully(0, back, 0, back.length);
        assertEquals(image.length, decoded.size());
        assertArrayEquals(image, back);
    }

    @Test
    @DisplayName("stores only the non-zero bytes of a mostly empty image")
    void sparse() {
        byte[] image = new byte[64 << 20];
        image[510] = 0x55;
        image[511] = (byte) 0xAA;
        image[image.length - 512] = 1;
        assertEquals(4 + 6 + 2 + 6 + 1, SparseImage.encode(image).length);
    }

    @Test
    @DisplayName("decodes any bytes: a short input is an empty image, chunks past the size are dropped, reads outside fail")
    void anyBytes() throws IOException {
        assertEquals(0, SparseImage.decode(new byte[3]).size());
        // size 8, a chunk at offset 6 of 4 bytes (two past the end), then a cut-off header
        SparseImage s = SparseImage.decode(new byte[] {8, 0, 0, 0, 6, 0, 0, 0, 4, 0, 1, 2, 3, 4, 9, 9});
        byte[] all = new byte[8];
        s.readFully(0, all, 0, 8);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 1, 2}, all);
        assertThrows(IOException.class, () -> s.readFully(4, new byte[8], 0, 8));
    }
}
