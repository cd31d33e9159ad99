package dev.sextant.attestation.tpmstructures;

/**
 * The one checked exception every TPM-structure parser throws: names the structure, the field
 * and the byte offset where the input stopped making sense.
 */
public final class TpmFormatException extends Exception {
    private final String structure;
    private final String field;
    private final int offset;

    public TpmFormatException(String structure, String field, int offset, String problem) {
        super(structure + "." + field + " at byte " + offset + ": " + problem);
        this.structure = structure;
        this.field = field;
        this.offset = offset;
    }

    public String structure() { return structure; }

    public String field() { return field; }

    public int offset() { return offset; }
}
