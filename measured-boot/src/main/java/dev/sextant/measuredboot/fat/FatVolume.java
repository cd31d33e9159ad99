package dev.sextant.measuredboot.fat;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;

/**
 * Read-only FAT12/16/32 volume, enough to fetch one file by path without mounting (the host
 * kernel has no vfat). Cluster chains are bounded by the cluster count and by the file size, so a
 * loop or a cross-link in a hostile FAT ends in a {@link MalformedImageException}, not a hang.
 */
public final class FatVolume {
    /** FAT spec §6: a directory holds at most 65536 entries. */
    private static final long MAX_DIR_BYTES = 65536L * 32;

    private final ByteSource vol;
    private final FatGeometry geo;
    private final ByteBuffer fat;

    private FatVolume(ByteSource vol, FatGeometry geo, ByteBuffer fat) {
        this.vol = vol;
        this.geo = geo;
        this.fat = fat;
    }

    public static FatVolume open(ByteSource vol) throws MalformedImageException, IOException {
        FatGeometry geo = FatGeometry.read(vol);
        // Only the entries of existing clusters are read: the FAT may be declared larger than needed.
        long used = geo.usedFatBytes();
        if (used > Integer.MAX_VALUE - 8) {
            throw new MalformedImageException("FAT", geo.fatOffset(), "FAT of " + used + " bytes is too large");
        }
        ByteBuffer fat = vol.read("FAT", geo.fatOffset(), (int) used).order(ByteOrder.LITTLE_ENDIAN);
        return new FatVolume(vol, geo, fat);
    }

    public String type() { return geo.type().name(); }

    /** Looks up a path such as {@code /EFI/BOOT/BOOTX64.EFI}, case-insensitively, by short or long name. */
    public Optional<FatEntry> find(String path) throws MalformedImageException, IOException {
        FatEntry current = null;
        for (String part : path.split("/")) {
            if (part.isEmpty()) {
                continue;
            }
            if (current != null && !current.isDirectory()) {
                return Optional.empty();
            }
            List<FatEntry> entries = current == null ? rootDirectory() : directory(current);
            current = entries.stream().filter(e -> e.matches(part)).findFirst().orElse(null);
            if (current == null) {
                return Optional.empty();
            }
        }
        return Optional.ofNullable(current);
    }

    public List<FatEntry> rootDirectory() throws MalformedImageException, IOException {
        if (geo.type() == FatGeometry.FatType.FAT32) {
            return FatDirectoryParser.parse(readChain(geo.rootCluster(), "root directory"), geo.dataOffset());
        }
        long len = geo.rootEntries() * 32L;
        return FatDirectoryParser.parse(vol.read("FAT root directory", geo.rootDirOffset(), (int) len).array(),
                geo.rootDirOffset());
    }

    public List<FatEntry> directory(FatEntry dir) throws MalformedImageException, IOException {
        if (dir.firstCluster() == 0) {
            return rootDirectory(); // ".." of a first-level directory points at the root as cluster 0
        }
        return FatDirectoryParser.parse(readChain(dir.firstCluster(), "directory " + dir.shortName()), dir.offset());
    }

    /** Writes a file's bytes to {@code out}, following its chain for exactly FileSize bytes. */
    public void copy(FatEntry file, OutputStream out) throws MalformedImageException, IOException {
        FatChain.walk(this, file.firstCluster(), file.size(), true, "file " + file.shortName(), out);
    }

    public byte[] readFile(FatEntry file, int maxBytes) throws MalformedImageException, IOException {
        if (file.size() > maxBytes) {
            throw new MalformedImageException("FAT directory entry", file.offset(), "file size " + file.size()
                    + " exceeds the limit of " + maxBytes + " bytes");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) file.size());
        copy(file, out);
        return out.toByteArray();
    }

    private byte[] readChain(long first, String what) throws MalformedImageException, IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FatChain.walk(this, first, MAX_DIR_BYTES, false, what, out);
        return out.toByteArray();
    }

    ByteSource source() { return vol; }

    FatGeometry geometry() { return geo; }

    /** The FAT entry of {@code cluster}: the next cluster, or a value >= {@link #endOfChain()}. */
    long next(long cluster) {
        return switch (geo.type()) {
            case FAT12 -> {
                int at = (int) (cluster + cluster / 2);
                int v = (fat.get(at) & 0xFF) | ((fat.get(at + 1) & 0xFF) << 8);
                yield (cluster & 1) == 1 ? v >>> 4 : v & 0xFFF;
            }
            case FAT16 -> fat.getShort((int) (cluster * 2)) & 0xFFFFL;
            case FAT32 -> fat.getInt((int) (cluster * 4)) & 0x0FFFFFFFL;
        };
    }

    long endOfChain() {
        return switch (geo.type()) {
            case FAT12 -> 0xFF8;
            case FAT16 -> 0xFFF8;
            case FAT32 -> 0x0FFFFFF8L;
        };
    }
}
