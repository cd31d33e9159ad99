package dev.sextant.imagebuilder;

import dev.sextant.measuredboot.gpt.GptPartition;
import dev.sextant.measuredboot.gpt.GptReader;
import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.io.MalformedImageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The erofs root must fit its partition (repart sizes it with Minimize=best): a file system
 * longer than its partition reads back I/O errors for its last files, and only in the guest.
 */
public final class RootFitCheck {
    static final String ROOT_PARTITION = "root-x86-64";
    private static final int SECTOR = 512;
    /** erofs_super_block at byte 1024: magic @0, blkszbits @12, blocks @36 (fs/erofs/erofs_fs.h). */
    private static final int SUPERBLOCK = 1024;
    private static final int EROFS_MAGIC = 0xE0F5E1E2;

    private RootFitCheck() {}

    /** Throws when the image has no erofs root partition or its file system overruns it. */
    public static void check(Path image) throws BuildException {
        try (FileSource disk = FileSource.open(image)) {
            GptPartition root = GptReader.read(disk, SECTOR).stream()
                    .filter(p -> ROOT_PARTITION.equals(p.name())).findFirst()
                    .orElseThrow(() -> new BuildException(image + " has no " + ROOT_PARTITION + " partition"));
            byte[] sb = new byte[40];
            disk.readFully(root.firstLba() * SECTOR + SUPERBLOCK, sb, 0, sb.length);
            ByteBuffer le = ByteBuffer.wrap(sb).order(ByteOrder.LITTLE_ENDIAN);
            if (le.getInt(0) != EROFS_MAGIC) {
                throw new BuildException("the root partition of " + image + " holds no erofs file system");
            }
            int blockBits = sb[12] & 0xff;
            if (blockBits < 9 || blockBits > 16) {
                throw new BuildException("the erofs root of " + image + " has an implausible block size 2^" + blockBits);
            }
            long fsBytes = Integer.toUnsignedLong(le.getInt(36)) << blockBits;
            long partBytes = (root.lastLba() - root.firstLba() + 1) * SECTOR;
            if (fsBytes > partBytes) {
                throw new BuildException("the erofs root (" + fsBytes + " bytes) is longer than its partition ("
                        + partBytes + " bytes) in " + image);
            }
        } catch (IOException | MalformedImageException e) {
            throw new BuildException("cannot read the partitions of " + image + ": " + e.getMessage(), e);
        }
    }
}
