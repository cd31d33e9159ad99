package dev.sextant.attestation.tpmstructures;

/** TPMT_SYM_DEF_OBJECT (TPM 2.0 Part 2, §11.1.7); {@code alg} TPM_ALG_NULL means none. */
public record TpmSymDef(int alg, int keyBits, int mode) {
    static TpmSymDef read(TpmReader r) throws TpmFormatException {
        int alg = r.u16("parameters.symmetric");
        if (alg == TpmAlg.NULL) {
            return new TpmSymDef(alg, 0, TpmAlg.NULL);
        }
        int keyBits = r.u16("parameters.symmetric.keyBits");
        int mode = r.u16("parameters.symmetric.mode");
        return new TpmSymDef(alg, keyBits, mode);
    }
}
