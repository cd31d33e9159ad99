package dev.sextant.measuredboot.fat;

/**
 * A directory entry as found on disk. {@code longName} is the VFAT long name when a valid LFN
 * run (checksum matching the short name) precedes the entry, otherwise null.
 */
public record FatEntry(String shortName, String longName, int attributes, long firstCluster, long size,
                       long offset) {
    static final int ATTR_DIRECTORY = 0x10;
    static final int ATTR_VOLUME_ID = 0x08;

    public boolean isDirectory() { return (attributes & ATTR_DIRECTORY) != 0; }

    /** FAT names compare case-insensitively; firmware looks up EFI\BOOT\BOOTX64.EFI that way, too. */
    public boolean matches(String name) {
        return name.equalsIgnoreCase(shortName) || (longName != null && name.equalsIgnoreCase(longName));
    }
}
