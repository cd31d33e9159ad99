package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmWriter;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** TPMS_NV_PUBLIC of an NV index (TPM 2.0 Part 2, §13.5) plus its name. */
public record NvPublic(int index, int nameAlg, int attributes, byte[] authPolicy, int dataSize, byte[] name) {
    // TPMA_NV bits (Part 2, §13.4).
    public static final int OWNERWRITE = 1 << 1;
    public static final int AUTHWRITE = 1 << 2;
    public static final int POLICYWRITE = 1 << 3;
    public static final int WRITEALL = 1 << 12;
    public static final int WRITTEN = 1 << 29;
    public static final int OWNERREAD = 1 << 17;
    public static final int AUTHREAD = 1 << 18;
    public static final int NO_DA = 1 << 25;
    /** TPM_ALG_SHA256, the only nameAlg Sextant defines indices with. */
    public static final int SHA256 = 0x000B;

    public NvPublic {
        authPolicy = authPolicy.clone();
        name = name.clone();
    }

    @Override
    public byte[] authPolicy() { return authPolicy.clone(); }

    @Override
    public byte[] name() { return name.clone(); }

    public boolean written() { return (attributes & WRITTEN) != 0; }

    /** The TPMS_NV_PUBLIC bytes of such an index, as TPM2_NV_DefineSpace takes them. */
    public static byte[] marshal(int index, int nameAlg, int attributes, byte[] authPolicy, int dataSize) {
        return new TpmWriter().u32(index & 0xFFFFFFFFL).u16(nameAlg).u32(attributes & 0xFFFFFFFFL).sized(authPolicy)
                .u16(dataSize).toByteArray();
    }

    /**
     * The name a TPM gives an index with this public area (Part 1, §16): nameAlg || SHA-256(TPMS_NV_PUBLIC).
     * Comparing it with the name the TPM reports checks every field at once.
     */
    public static byte[] nameOf(int index, int attributes, byte[] authPolicy, int dataSize) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(marshal(index, SHA256, attributes, authPolicy, dataSize));
            return new TpmWriter().u16(SHA256).bytes(digest).toByteArray();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
