package dev.sextant.attestation.tpmstructures;

/** TPMS_CERTIFY_INFO (TPM 2.0 Part 2, §10.12.3): the name and qualified name of a certified object. */
public record TpmsCertifyInfo(byte[] name, byte[] qualifiedName) implements TpmsAttested {
    public TpmsCertifyInfo {
        name = name.clone();
        qualifiedName = qualifiedName.clone();
    }

    @Override
    public byte[] name() { return name.clone(); }

    @Override
    public byte[] qualifiedName() { return qualifiedName.clone(); }

    static TpmsCertifyInfo read(TpmReader r) throws TpmFormatException {
        byte[] name = r.sized(TpmsAttest.MAX_NAME, "certify.name");
        byte[] qualified = r.sized(TpmsAttest.MAX_NAME, "certify.qualifiedName");
        return new TpmsCertifyInfo(name, qualified);
    }
}
