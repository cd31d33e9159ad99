package dev.sextant.measuredboot.fat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes 32-byte directory entries, assembling VFAT long names (FAT spec §6 and §7: LFN entries
 * precede their short entry in reverse order, each carrying the short name's checksum). An LFN run
 * whose checksum or sequence does not match is dropped and the short name is used, as Windows does.
 */
final class FatDirectoryParser {
    private static final int ATTR_LONG_NAME = 0x0F;
    private static final int[] LFN_CHAR_OFFSETS = {1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30};

    private FatDirectoryParser() {
    }

    static List<FatEntry> parse(byte[] dir, long baseOffset) {
        ByteBuffer b = ByteBuffer.wrap(dir).order(ByteOrder.LITTLE_ENDIAN);
        List<FatEntry> out = new ArrayList<>();
        String[] lfnParts = null;
        int lfnChecksum = -1;
        for (int at = 0; at + 32 <= dir.length; at += 32) {
            int first = dir[at] & 0xFF;
            if (first == 0x00) {
                break; // end of directory
            }
            int attr = dir[at + 11] & 0xFF;
            if (first == 0xE5) {
                lfnParts = null;
                continue;
            }
            if ((attr & 0x3F) == ATTR_LONG_NAME) {
                int ord = first & 0x1F;
                if ((first & 0x40) != 0 && ord > 0) {
                    lfnParts = new String[ord];
                    lfnChecksum = dir[at + 13] & 0xFF;
                }
                if (lfnParts != null && ord >= 1 && ord <= lfnParts.length && (dir[at + 13] & 0xFF) == lfnChecksum) {
                    lfnParts[ord - 1] = lfnChars(dir, at);
                } else {
                    lfnParts = null;
                }
                continue;
            }
            if ((attr & FatEntry.ATTR_VOLUME_ID) == 0) {
                String longName = lfnParts != null && checksum(dir, at) == lfnChecksum ? join(lfnParts) : null;
                long cluster = ((b.getShort(at + 20) & 0xFFFFL) << 16) | (b.getShort(at + 26) & 0xFFFFL);
                out.add(new FatEntry(shortName(dir, at), longName, attr, cluster, b.getInt(at + 28) & 0xFFFFFFFFL,
                        baseOffset + at));
            }
            lfnParts = null;
        }
        return out;
    }

    private static String lfnChars(byte[] d, int at) {
        StringBuilder sb = new StringBuilder(13);
        for (int off : LFN_CHAR_OFFSETS) {
            char c = (char) ((d[at + off] & 0xFF) | ((d[at + off + 1] & 0xFF) << 8));
            if (c == 0 || c == 0xFFFF) {
                break;
            }
            sb.append(c);
        }
        return sb.toString();
    }

    private static String join(String[] parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (p == null) {
                return null; // a part is missing: ignore the long name
            }
            sb.append(p);
        }
        return sb.toString();
    }

    /** FAT spec §7.2 ChkSum over the 11 bytes of the short name. */
    private static int checksum(byte[] d, int at) {
        int sum = 0;
        for (int i = 0; i < 11; i++) {
            sum = (((sum & 1) << 7) | ((sum & 0xFF) >>> 1)) + (d[at + i] & 0xFF);
            sum &= 0xFF;
        }
        return sum;
    }

    private static String shortName(byte[] d, int at) {
        byte[] n = java.util.Arrays.copyOfRange(d, at, at + 11);
        if ((n[0] & 0xFF) == 0x05) {
            n[0] = (byte) 0xE5; // 0x05 stands for a leading 0xE5 (KANJI lead byte)
        }
        String base = new String(n, 0, 8, StandardCharsets.ISO_8859_1).stripTrailing();
        String ext = new String(n, 8, 3, StandardCharsets.ISO_8859_1).stripTrailing();
        return ext.isEmpty() ? base : base + "." + ext;
    }
}
