package dev.sextant.attestation.tpmstructures;

/** TPMS_QUOTE_INFO (TPM 2.0 Part 2, §10.12.4): the PCRs quoted and the digest of their values. */
public record TpmsQuoteInfo(PcrSelection pcrSelect, byte[] pcrDigest) implements TpmsAttested {
    public TpmsQuoteInfo {
        pcrDigest = pcrDigest.clone();
    }

    @Override
    public byte[] pcrDigest() { return pcrDigest.clone(); }

    static TpmsQuoteInfo read(TpmReader r) throws TpmFormatException {
        PcrSelection selection = PcrSelection.read(r);
        byte[] digest = r.sized(TpmsAttest.MAX_DIGEST, "quote.pcrDigest");
        return new TpmsQuoteInfo(selection, digest);
    }
}
