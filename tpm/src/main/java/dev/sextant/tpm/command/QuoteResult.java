package dev.sextant.tpm.command;

/** What TPM2_Quote returned: TPMS_ATTEST (TPM2B_ATTEST contents) and the TPMT_SIGNATURE over it. */
public record QuoteResult(byte[] attest, byte[] signature) {
    public QuoteResult {
        attest = attest.clone();
        signature = signature.clone();
    }

    @Override
    public byte[] attest() { return attest.clone(); }

    @Override
    public byte[] signature() { return signature.clone(); }
}
