package dev.sextant.tpm.attest;

import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmReader;

/**
 * The two fields of a TPMS_ATTEST (TPM 2.0 Part 2, §10.12.12) the issuer needs: extraData (the
 * qualifying data) and, of TPMS_QUOTE_INFO (§10.12.4), pcrDigest. The full parser belongs to the
 * verifier; this one only walks past the other fields.
 */
record QuotedPcrDigest(byte[] extraData, byte[] pcrDigest) {
    private static final long TPM_GENERATED_VALUE = 0xff544347L;
    private static final int TPM_ST_ATTEST_QUOTE = 0x8018;

    static QuotedPcrDigest parse(byte[] attest) throws TpmFormatException {
        TpmReader r = new TpmReader(attest, "TPMS_ATTEST");
        if (r.u32("magic") != TPM_GENERATED_VALUE) {
            throw r.fail("magic", "not TPM_GENERATED_VALUE");
        }
        if (r.u16("type") != TPM_ST_ATTEST_QUOTE) {
            throw r.fail("type", "not TPM_ST_ATTEST_QUOTE");
        }
        r.sized(68, "qualifiedSigner");
        byte[] extraData = r.sized(64, "extraData");
        r.bytes(17, "clockInfo");           // clock u64, resetCount u32, restartCount u32, safe u8
        r.u64("firmwareVersion");
        long banks = r.u32("attested.pcrSelect.count");
        for (long i = 0; i < banks; i++) {
            r.u16("attested.pcrSelect.hash");
            r.bytes(r.u8("attested.pcrSelect.sizeofSelect"), "attested.pcrSelect.pcrSelect");
        }
        byte[] pcrDigest = r.sized(64, "attested.pcrDigest");
        r.expectEnd();
        return new QuotedPcrDigest(extraData, pcrDigest);
    }
}
