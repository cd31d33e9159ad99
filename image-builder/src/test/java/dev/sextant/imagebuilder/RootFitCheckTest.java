package dev.sextant.imagebuilder;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.measuredboot.testing.Tools;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The erofs root check")
class RootFitCheckTest {
    /** The root partition spans LBAs 2048..4095: 1 MiB. */
    private static final long ROOT_START = 2048 * 512L;
    private static final long ROOT_BYTES = 2048 * 512L;

    @TempDir
    Path dir;

    @Test
    @DisplayName("accepts an erofs file system exactly as long as its partition")
    void acceptsFittingRoot() throws Exception {
        Path disk = disk("root-x86-64", 0xE0F5E1E2, 12, ROOT_BYTES >> 12);
        assertDoesNotThrow(() -> RootFitCheck.check(disk));
    }

    @Test
    @DisplayName("rejects an erofs file system one block longer than its partition, naming both sizes")
    void rejectsOverrunningRoot() throws Exception {
        Path disk = disk("root-x86-64", 0xE0F5E1E2, 12, (ROOT_BYTES >> 12) + 1);
        BuildException e = assertThrows(BuildException.class, () -> RootFitCheck.check(disk));
        assertTrue(e.getMessage().contains("1052672 bytes") && e.getMessage().contains("1048576 bytes"), e.getMessage());
    }

    @Test
    @DisplayName("rejects a root partition without the erofs magic")
    void rejectsNonErofsRoot() throws Exception {
        Path disk = disk("root-x86-64", 0xEF53, 12, 1);
        BuildException e = assertThrows(BuildException.class, () -> RootFitCheck.check(disk));
        assertTrue(e.getMessage().contains("no erofs"), e.getMessage());
    }

    @Test
    @DisplayName("rejects an image without a partition named root-x86-64")
    void rejectsMissingRoot() throws Exception {
        Path disk = disk("usr-x86-64", 0xE0F5E1E2, 12, 1);
        BuildException e = assertThrows(BuildException.class, () -> RootFitCheck.check(disk));
        assertTrue(e.getMessage().contains("no root-x86-64 partition"), e.getMessage());
    }

    private Path disk(String name, int magic, int blockBits, long blocks) throws Exception {
        Tools.require("sgdisk");
        Path disk = dir.resolve(name + "-" + blocks + ".raw");
        try (RandomAccessFile f = new RandomAccessFile(disk.toFile(), "rw")) {
            f.setLength(ROOT_START + ROOT_BYTES + 1024 * 1024);
        }
        Tools.run(dir, "sgdisk", "-n", "1:2048:4095", "-t", "1:8304", "-c", "1:" + name, disk.toString()).ok();
        ByteBuffer sb = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        sb.putInt(0, magic).put(12, (byte) blockBits).putInt(36, (int) blocks);
        try (RandomAccessFile f = new RandomAccessFile(disk.toFile(), "rw")) {
            f.seek(ROOT_START + 1024);
            f.write(sb.array());
        }
        return disk;
    }
}
