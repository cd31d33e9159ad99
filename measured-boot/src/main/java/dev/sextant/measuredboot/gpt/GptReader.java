package dev.sextant.measuredboot.gpt;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * Reads the primary GPT of a disk image without mounting it (UEFI 2.10 §5.3): the header at LBA 1,
 * its CRC32, the partition entry array and its CRC32. A failed CRC is an error rather than a
 * reason to fall back to the backup header: an image we are about to measure must be intact.
 */
public final class GptReader {
    private static final long SIGNATURE = 0x5452415020494645L; // "EFI PART", little-endian
    private static final int MAX_ENTRY_ARRAY = 4 << 20;

    private GptReader() {
    }

    /** Partitions of a disk with the given logical sector size (512 for mkosi/QEMU images). */
    public static List<GptPartition> read(ByteSource disk, int sectorSize)
            throws MalformedImageException, IOException {
        ByteBuffer h = disk.read("GPT header", sectorSize, sectorSize);
        if (h.getLong(0) != SIGNATURE) {
            throw new MalformedImageException("GPT header", sectorSize, "no \"EFI PART\" signature");
        }
        int headerSize = h.getInt(12);
        if (headerSize < 92 || headerSize > sectorSize) {
            throw new MalformedImageException("GPT header", sectorSize + 12L, "HeaderSize " + headerSize + " out of range");
        }
        byte[] hdr = new byte[headerSize];
        h.get(0, hdr);
        int storedCrc = h.getInt(16);
        ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN).putInt(16, 0);
        if (crc32(hdr) != storedCrc) {
            throw new MalformedImageException("GPT header", sectorSize + 16L, "header CRC32 mismatch");
        }
        long entriesLba = h.getLong(72);
        long count = h.getInt(80) & 0xFFFFFFFFL;
        long entrySize = h.getInt(84) & 0xFFFFFFFFL;
        if (entrySize < 128 || entrySize % 128 != 0 || entrySize > MAX_ENTRY_ARRAY || count > MAX_ENTRY_ARRAY / entrySize) {
            throw new MalformedImageException("GPT header", sectorSize + 80L, "entry array of " + count
                    + " x " + entrySize + " bytes is out of range");
        }
        if (entriesLba < 2 || entriesLba > disk.size() / sectorSize) {
            throw new MalformedImageException("GPT header", sectorSize + 72L, "PartitionEntryLBA " + entriesLba + " outside the disk");
        }
        ByteBuffer entries = disk.read("GPT partition entries", entriesLba * sectorSize, (int) (count * entrySize));
        if (crc32(entries.array()) != h.getInt(88)) {
            throw new MalformedImageException("GPT partition entries", entriesLba * sectorSize, "entry array CRC32 mismatch");
        }
        return parseEntries(entries, (int) count, (int) entrySize, disk.size() / sectorSize, entriesLba * sectorSize);
    }

    private static List<GptPartition> parseEntries(ByteBuffer b, int count, int size, long diskLbas, long base)
            throws MalformedImageException {
        List<GptPartition> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int at = i * size;
            UUID type = guid(b, at);
            if (type.getMostSignificantBits() == 0 && type.getLeastSignificantBits() == 0) {
                continue; // unused entry
            }
            long first = b.getLong(at + 32);
            long last = b.getLong(at + 40);
            if (first < 0 || last < first || last >= diskLbas) {
                throw new MalformedImageException("GPT partition entry " + (i + 1), base + at + 32,
                        "LBAs " + first + ".." + last + " are outside the disk of " + diskLbas + " sectors");
            }
            byte[] name = new byte[72];
            b.get(at + 56, name);
            String n = new String(name, StandardCharsets.UTF_16LE);
            int nul = n.indexOf('\0');
            out.add(new GptPartition(i + 1, type, guid(b, at + 16), first, last, nul < 0 ? n : n.substring(0, nul)));
        }
        return out;
    }

    /** GUIDs are stored mixed-endian: the first three fields little-endian, the rest as bytes. */
    static UUID guid(ByteBuffer b, int at) {
        long d1 = b.getInt(at) & 0xFFFFFFFFL;
        long d2 = b.getShort(at + 4) & 0xFFFFL;
        long d3 = b.getShort(at + 6) & 0xFFFFL;
        long msb = (d1 << 32) | (d2 << 16) | d3;
        long lsb = 0;
        for (int i = 8; i < 16; i++) {
            lsb = (lsb << 8) | (b.get(at + i) & 0xFF);
        }
        return new UUID(msb, lsb);
    }

    private static int crc32(byte[] data) {
        CRC32 c = new CRC32();
        c.update(data);
        return (int) c.getValue();
    }
}
