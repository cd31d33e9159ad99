package dev.sextant.tpm.command;

/** TPMS_NV_PUBLIC of an NV index (TPM 2.0 Part 2, §13.5) plus its name. */
public record NvPublic(int index, int nameAlg, int attributes, byte[] authPolicy, int dataSize, byte[] name) {
    // TPMA_NV bits (Part 2, §13.4).
    public static final int OWNERWRITE = 1 << 1;
    public static final int AUTHWRITE = 1 << 2;
    public static final int WRITTEN = 1 << 29;
    public static final int OWNERREAD = 1 << 17;
    public static final int AUTHREAD = 1 << 18;
    public static final int NO_DA = 1 << 25;

    public NvPublic {
        authPolicy = authPolicy.clone();
        name = name.clone();
    }

    @Override
    public byte[] authPolicy() { return authPolicy.clone(); }

    @Override
    public byte[] name() { return name.clone(); }

    public boolean written() { return (attributes & WRITTEN) != 0; }
}
