package dev.sextant.tpm.command;

/**
 * A loaded primary object: its transient handle, the TPMT_PUBLIC the TPM returned (exact bytes)
 * and its TPM name (nameAlg || H(TPMT_PUBLIC)).
 */
public record CreatedPrimary(int handle, byte[] tpmtPublic, byte[] name) {
    public CreatedPrimary {
        tpmtPublic = tpmtPublic.clone();
        name = name.clone();
    }

    @Override
    public byte[] tpmtPublic() { return tpmtPublic.clone(); }

    @Override
    public byte[] name() { return name.clone(); }
}
