package dev.sextant.measuredboot.io;

/**
 * The one checked exception every parser of untrusted image bytes (PE/COFF, GPT, FAT) throws.
 * It names the structure, the field and the absolute byte offset where the input stopped making
 * sense, so an operator can look at the exact spot with a hex dump.
 */
public final class MalformedImageException extends Exception {
    private final String structure;
    private final long offset;

    public MalformedImageException(String structure, long offset, String problem) {
        super(structure + " at byte " + offset + ": " + problem);
        this.structure = structure;
        this.offset = offset;
    }

    public MalformedImageException(String structure, long offset, String problem, Throwable cause) {
        super(structure + " at byte " + offset + ": " + problem, cause);
        this.structure = structure;
        this.offset = offset;
    }

    public String structure() { return structure; }

    public long offset() { return offset; }
}
