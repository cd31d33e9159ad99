package dev.sextant.attestation.tpmstructures;

/**
 * TPMS_ATTEST (TPM 2.0 Part 2, §10.12.12) as signed by the TPM, for the two types Sextant reads
 * (quote and certify). {@link #raw()} is exactly the signed byte string: signatures are checked
 * over it, never over a re-encoding.
 */
public record TpmsAttest(byte[] raw, int type, byte[] qualifiedSigner, byte[] extraData,
                         TpmsClockInfo clockInfo, long firmwareVersion, TpmsAttested attested) {
    /** TPM_GENERATED_VALUE (Part 2, §6.2): only the TPM signs data that starts with it. */
    public static final long TPM_GENERATED_VALUE = 0xFF544347L;
    /** TPM_ST_ATTEST_CERTIFY and TPM_ST_ATTEST_QUOTE (Part 2, §6.9). */
    public static final int TPM_ST_ATTEST_CERTIFY = 0x8017;
    public static final int TPM_ST_ATTEST_QUOTE = 0x8018;
    /** sizeof(TPMU_HA) for SHA-512, the largest digest (Part 2, §10.3.1). */
    static final int MAX_DIGEST = 64;
    /** sizeof(TPMU_NAME): algorithm id plus the largest digest (Part 2, §10.5.3). */
    static final int MAX_NAME = 2 + MAX_DIGEST;
    /** TPM2B_DATA holds at most sizeof(TPMT_HA) (Part 2, §10.4.3). */
    static final int MAX_DATA = 2 + MAX_DIGEST;

    public TpmsAttest {
        raw = raw.clone();
        qualifiedSigner = qualifiedSigner.clone();
        extraData = extraData.clone();
    }

    @Override
    public byte[] raw() { return raw.clone(); }

    @Override
    public byte[] qualifiedSigner() { return qualifiedSigner.clone(); }

    @Override
    public byte[] extraData() { return extraData.clone(); }

    public static TpmsAttest parse(byte[] bytes) throws TpmFormatException {
        TpmReader r = new TpmReader(bytes, "TPMS_ATTEST");
        long magic = r.u32("magic");
        if (magic != TPM_GENERATED_VALUE) {
            throw r.fail("magic", String.format("0x%08x is not TPM_GENERATED_VALUE", magic));
        }
        int type = r.u16("type");
        if (type != TPM_ST_ATTEST_QUOTE && type != TPM_ST_ATTEST_CERTIFY) {
            throw r.fail("type", String.format("unsupported TPMI_ST_ATTEST 0x%04x", type));
        }
        byte[] signer = r.sized(MAX_NAME, "qualifiedSigner");
        byte[] extra = r.sized(MAX_DATA, "extraData");
        TpmsClockInfo clock = TpmsClockInfo.read(r);
        long firmware = r.u64("firmwareVersion");
        TpmsAttested attested = type == TPM_ST_ATTEST_QUOTE ? TpmsQuoteInfo.read(r) : TpmsCertifyInfo.read(r);
        r.expectEnd();
        return new TpmsAttest(bytes, type, signer, extra, clock, firmware, attested);
    }

    /** The quote part, or empty for other attestation types. */
    public java.util.Optional<TpmsQuoteInfo> quote() {
        return attested instanceof TpmsQuoteInfo q ? java.util.Optional.of(q) : java.util.Optional.empty();
    }
}
