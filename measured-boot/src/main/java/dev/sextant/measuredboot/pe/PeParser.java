package dev.sextant.measuredboot.pe;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses the PE/COFF headers of an untrusted image (Microsoft PE Format: MS-DOS stub, COFF file
 * header, optional header, data directories, section table). Sizes from the input are bounded by
 * the input's size before anything is allocated, so hostile headers give a
 * {@link MalformedImageException} naming the offset, never an OOM or a wrong digest.
 */
public final class PeParser {
    private static final int MZ = 0x5A4D;
    private static final int PE_SIGNATURE = 0x00004550;
    private static final int PE32 = 0x10b;
    private static final int PE32_PLUS = 0x20b;
    private static final int CERTIFICATE_TABLE = 4;
    private static final int SECTION_HEADER_SIZE = 40;

    private PeParser() {
    }

    public static PeFile parse(ByteSource src) throws MalformedImageException, IOException {
        ByteBuffer dos = src.read("MS-DOS header", 0, 64);
        if ((dos.getShort(0) & 0xFFFF) != MZ) {
            throw new MalformedImageException("MS-DOS header", 0, "no MZ signature");
        }
        long peOff = dos.getInt(0x3C) & 0xFFFFFFFFL;
        ByteBuffer coff = src.read("PE signature", peOff, 24);
        if (coff.getInt(0) != PE_SIGNATURE) {
            throw new MalformedImageException("PE signature", peOff, "no PE\\0\\0 signature");
        }
        int numberOfSections = coff.getShort(6) & 0xFFFF;
        int sizeOfOptionalHeader = coff.getShort(20) & 0xFFFF;
        long optOff = peOff + 24;
        ByteBuffer opt = src.read("optional header", optOff, sizeOfOptionalHeader);
        if (sizeOfOptionalHeader < 96) {
            throw new MalformedImageException("optional header", optOff, "SizeOfOptionalHeader "
                    + sizeOfOptionalHeader + " is too small");
        }
        int magic = opt.getShort(0) & 0xFFFF;
        if (magic != PE32 && magic != PE32_PLUS) {
            throw new MalformedImageException("optional header", optOff, "unknown magic 0x" + Integer.toHexString(magic));
        }
        boolean plus = magic == PE32_PLUS;
        long sizeOfHeaders = opt.getInt(60) & 0xFFFFFFFFL;
        int dirCountAt = plus ? 108 : 92;
        int dirsAt = dirCountAt + 4;
        long dirCount = dirCountAt + 4 <= sizeOfOptionalHeader ? opt.getInt(dirCountAt) & 0xFFFFFFFFL : 0;
        if (dirsAt + dirCount * 8 > sizeOfOptionalHeader) {
            throw new MalformedImageException("optional header", optOff + dirCountAt, "NumberOfRvaAndSizes "
                    + dirCount + " does not fit in SizeOfOptionalHeader " + sizeOfOptionalHeader);
        }
        long certEntry = -1;
        long certOff = 0;
        long certSize = 0;
        if (dirCount > CERTIFICATE_TABLE) {
            int at = dirsAt + CERTIFICATE_TABLE * 8;
            certEntry = optOff + at;
            certOff = opt.getInt(at) & 0xFFFFFFFFL;
            certSize = opt.getInt(at + 4) & 0xFFFFFFFFL;
            if (certSize > 0) {
                src.require("attribute certificate table", certOff, certSize);
            }
        }
        long sectionTable = optOff + sizeOfOptionalHeader;
        List<PeSection> sections = readSections(src, sectionTable, numberOfSections);
        long headersEnd = sectionTable + (long) numberOfSections * SECTION_HEADER_SIZE;
        if (sizeOfHeaders < headersEnd || sizeOfHeaders > src.size()) {
            throw new MalformedImageException("optional header", optOff + 60, "SizeOfHeaders " + sizeOfHeaders
                    + " must cover the section table (ends at " + headersEnd + ") and fit the file (" + src.size() + ")");
        }
        return new PeFile(src, plus, optOff + 64, certEntry, sizeOfHeaders, certOff, certSize, sections);
    }

    private static List<PeSection> readSections(ByteSource src, long table, int count)
            throws MalformedImageException, IOException {
        ByteBuffer b = src.read("section table", table, count * SECTION_HEADER_SIZE);
        List<PeSection> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = i * SECTION_HEADER_SIZE;
            byte[] rawName = new byte[8];
            b.get(at, rawName);
            int len = 0;
            while (len < 8 && rawName[len] != 0) {
                len++;
            }
            PeSection s = new PeSection(new String(rawName, 0, len, StandardCharsets.US_ASCII),
                    b.getInt(at + 8) & 0xFFFFFFFFL, b.getInt(at + 12) & 0xFFFFFFFFL,
                    b.getInt(at + 16) & 0xFFFFFFFFL, b.getInt(at + 20) & 0xFFFFFFFFL);
            if (s.sizeOfRawData() > 0) {
                src.require("section " + s.name() + " raw data (section header at " + (table + at) + ")",
                        s.pointerToRawData(), s.sizeOfRawData());
            }
            out.add(s);
        }
        return out;
    }
}
