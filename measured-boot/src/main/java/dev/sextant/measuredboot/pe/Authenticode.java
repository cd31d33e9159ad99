package dev.sextant.measuredboot.pe;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.Comparator;
import java.util.List;

/**
 * Authenticode SHA-256 of a PE image ("Windows Authenticode Portable Executable Signature
 * Format", §"Calculating the PE Image Hash"), computed the way EDK2/OVMF's measured-boot handler
 * does it for PCR 4: headers without CheckSum and the Certificate Table entry, sections with raw
 * data in PointerToRawData order, then trailing data up to the attribute certificate table.
 */
public final class Authenticode {
    private Authenticode() {
    }

    public static byte[] sha256(ByteSource src) throws MalformedImageException, IOException {
        return sha256(PeParser.parse(src));
    }

    public static byte[] sha256(PeFile pe) throws MalformedImageException, IOException {
        MessageDigest md = Sha256.newDigest();
        ByteSource src = pe.source();
        hash(md, src, 0, pe.checksumOffset());
        if (pe.certDirEntryOffset() < 0) {
            hash(md, src, pe.checksumOffset() + 4, pe.sizeOfHeaders());
        } else {
            hash(md, src, pe.checksumOffset() + 4, pe.certDirEntryOffset());
            hash(md, src, pe.certDirEntryOffset() + 8, pe.sizeOfHeaders());
        }
        long hashed = pe.sizeOfHeaders();
        List<PeSection> ordered = pe.sections().stream().filter(s -> s.sizeOfRawData() > 0)
                .sorted(Comparator.comparingLong(PeSection::pointerToRawData)).toList();
        for (PeSection s : ordered) {
            hash(md, src, s.pointerToRawData(), s.pointerToRawData() + s.sizeOfRawData());
            hashed += s.sizeOfRawData();
        }
        long size = src.size();
        if (size > hashed) {
            long end = size - pe.certTableSize();
            if (end < hashed) {
                throw new MalformedImageException("attribute certificate table", pe.certTableOffset(),
                        "size " + pe.certTableSize() + " overlaps the " + hashed + " bytes of headers and sections");
            }
            hash(md, src, hashed, end);
        }
        return md.digest();
    }

    private static void hash(MessageDigest md, ByteSource src, long from, long to)
            throws MalformedImageException, IOException {
        if (to < from) {
            throw new MalformedImageException("PE header", from, "hashed range ends before it starts (at " + to + ")");
        }
        src.require("PE hashed range", from, to - from);
        src.feed(md, from, to);
    }
}
