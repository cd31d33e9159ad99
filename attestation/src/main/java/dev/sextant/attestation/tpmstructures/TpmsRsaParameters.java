package dev.sextant.attestation.tpmstructures;

/** TPMS_RSA_PARMS (Part 2, §12.2.3.5) plus the TPM2B_PUBLIC_KEY_RSA modulus. */
public record TpmsRsaParameters(TpmSymDef symmetric, TpmScheme scheme, int keyBits, long exponent, byte[] modulus)
        implements TpmsKeyParameters {
    /** TPM2B_PUBLIC_KEY_RSA holds at most MAX_RSA_KEY_BYTES (4096-bit keys, Part 2, §11.2.4.5). */
    static final int MAX_MODULUS = 512;

    public TpmsRsaParameters {
        modulus = modulus.clone();
    }

    @Override
    public byte[] modulus() { return modulus.clone(); }

    /** The exponent, where 0 means the default 2^16+1 (Part 2, §12.2.3.5). */
    public long effectiveExponent() { return exponent == 0 ? 65537 : exponent; }

    static TpmsRsaParameters read(TpmReader r) throws TpmFormatException {
        TpmSymDef symmetric = TpmSymDef.read(r);
        TpmScheme scheme = TpmScheme.readRsa(r);
        int keyBits = r.u16("parameters.keyBits");
        long exponent = r.u32("parameters.exponent");
        byte[] modulus = r.sized(MAX_MODULUS, "unique.rsa");
        return new TpmsRsaParameters(symmetric, scheme, keyBits, exponent, modulus);
    }
}
