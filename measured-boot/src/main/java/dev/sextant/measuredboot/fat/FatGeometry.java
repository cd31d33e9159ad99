package dev.sextant.measuredboot.fat;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The BIOS Parameter Block of a FAT volume and what follows from it (Microsoft "FAT: General
 * Overview of On-Disk Format" 1.03, §3 and §3.5: the FAT type is decided by the cluster count
 * alone). Every region is checked to lie inside the volume.
 */
record FatGeometry(FatType type, int bytesPerSector, int sectorsPerCluster, long fatOffset, long fatBytes,
                   long rootDirOffset, int rootEntries, long rootCluster, long dataOffset, long clusterCount) {

    enum FatType { FAT12, FAT16, FAT32 }

    /** Bytes of the FAT that map clusters 0..clusterCount+1 (FAT12 packs two entries in three bytes). */
    long usedFatBytes() {
        return switch (type) {
            case FAT12 -> (clusterCount + 2) * 3 / 2 + 1;
            case FAT16 -> (clusterCount + 2) * 2;
            case FAT32 -> (clusterCount + 2) * 4;
        };
    }

    long clusterBytes() { return (long) bytesPerSector * sectorsPerCluster; }

    long clusterOffset(long cluster) { return dataOffset + (cluster - 2) * clusterBytes(); }

    static FatGeometry read(ByteSource vol) throws MalformedImageException, IOException {
        ByteBuffer b = vol.read("FAT boot sector", 0, 512);
        if ((b.getShort(510) & 0xFFFF) != 0xAA55) {
            throw new MalformedImageException("FAT boot sector", 510, "no 0x55AA signature");
        }
        int bps = b.getShort(11) & 0xFFFF;
        int spc = b.get(13) & 0xFF;
        int reserved = b.getShort(14) & 0xFFFF;
        int fats = b.get(16) & 0xFF;
        int rootEntries = b.getShort(17) & 0xFFFF;
        long totSec = (b.getShort(19) & 0xFFFF) != 0 ? b.getShort(19) & 0xFFFF : b.getInt(32) & 0xFFFFFFFFL;
        long fatSz = (b.getShort(22) & 0xFFFF) != 0 ? b.getShort(22) & 0xFFFF : b.getInt(36) & 0xFFFFFFFFL;
        if (bps < 512 || bps > 4096 || Integer.bitCount(bps) != 1) {
            throw new MalformedImageException("FAT boot sector", 11, "BytsPerSec " + bps + " is not 512..4096");
        }
        if (spc == 0 || Integer.bitCount(spc) != 1 || reserved == 0 || fats == 0 || fatSz == 0) {
            throw new MalformedImageException("FAT boot sector", 13, "zero or invalid SecPerClus/RsvdSecCnt/NumFATs/FATSz");
        }
        long rootSectors = ((long) rootEntries * 32 + bps - 1) / bps;
        long firstData = reserved + fats * fatSz + rootSectors;
        if (totSec * bps > vol.size() || firstData >= totSec) {
            throw new MalformedImageException("FAT boot sector", 19, "TotSec " + totSec + " x " + bps
                    + " does not fit the partition of " + vol.size() + " bytes or leaves no data region");
        }
        long clusters = (totSec - firstData) / spc;
        FatType type = clusters < 4085 ? FatType.FAT12 : clusters < 65525 ? FatType.FAT16 : FatType.FAT32;
        long rootCluster = type == FatType.FAT32 ? b.getInt(44) & 0x0FFFFFFFL : 0;
        FatGeometry g = new FatGeometry(type, bps, spc, (long) reserved * bps, fatSz * bps,
                (reserved + fats * fatSz) * bps, rootEntries, rootCluster, firstData * bps, clusters);
        if (g.fatBytes() < g.usedFatBytes()) {
            throw new MalformedImageException("FAT boot sector", 22, "FAT of " + fatSz * bps
                    + " bytes cannot map " + clusters + " clusters");
        }
        return g;
    }
}
