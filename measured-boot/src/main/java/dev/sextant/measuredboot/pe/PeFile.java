package dev.sextant.measuredboot.pe;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A parsed PE/COFF image: the header offsets Authenticode needs and the section table. Every
 * offset and size in here was checked against the file size by {@link PeParser}.
 *
 * @param checksumOffset       file offset of OptionalHeader.CheckSum (excluded from Authenticode)
 * @param certDirEntryOffset   file offset of the Certificate Table data-directory entry, or -1
 *                             if the image has no such entry (then nothing is skipped there)
 * @param certTableOffset      file offset of the attribute certificate table (0 if none)
 * @param certTableSize        its size in bytes (0 if none)
 */
public record PeFile(ByteSource source, boolean pe32Plus, long checksumOffset, long certDirEntryOffset,
                     long sizeOfHeaders, long certTableOffset, long certTableSize,
                     List<PeSection> sections) {

    public PeFile {
        sections = List.copyOf(sections);
    }

    public Optional<PeSection> section(String name) {
        return sections.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /**
     * The section's bytes as the loader maps them: {@code [0, VirtualSize)}, zero-filled beyond
     * SizeOfRawData. This is the range systemd-stub measures and hands on (kernel, initrd).
     */
    public ByteSource mappedData(PeSection s) throws MalformedImageException {
        long fromFile = Math.min(s.virtualSize(), s.sizeOfRawData());
        ByteSource raw = source.slice("PE section " + s.name(), s.pointerToRawData(), fromFile);
        return fromFile == s.virtualSize() ? raw : new ZeroPaddedSource(raw, s.virtualSize());
    }

    /** Reads a small section whole (.sdmagic, .cmdline, .osrel); refuses sections over {@code max}. */
    public byte[] mappedBytes(PeSection s, int max) throws MalformedImageException, IOException {
        if (s.virtualSize() > max) {
            throw new MalformedImageException("PE section " + s.name(), s.pointerToRawData(),
                    "VirtualSize " + s.virtualSize() + " exceeds the " + max + " bytes expected here");
        }
        ByteSource data = mappedData(s);
        byte[] out = new byte[(int) data.size()];
        data.readFully(0, out, 0, out.length);
        return out;
    }

    private record ZeroPaddedSource(ByteSource raw, long size) implements ByteSource {
        @Override
        public void readFully(long position, byte[] dst, int off, int len) throws IOException {
            if (position < 0 || len < 0 || position > size - len) {
                throw new IOException("read of " + len + " bytes at " + position + " outside " + size);
            }
            java.util.Arrays.fill(dst, off, off + len, (byte) 0);
            long rawEnd = raw.size();
            if (position < rawEnd) {
                int n = (int) Math.min(len, rawEnd - position);
                raw.readFully(position, dst, off, n);
            }
        }
    }
}
