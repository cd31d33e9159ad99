package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmWriter;

/**
 * The fixed TPMT_PUBLIC template of Sextant's attestation key (shared design decision "AK"):
 * RSA-2048 restricted signing key, RSASSA-SHA256, nameAlg SHA-256, empty authPolicy, exponent 0
 * (= 65537), empty unique. Because the AK is a primary key, the same template under the same owner
 * seed always yields the same key: no key blob has to be stored anywhere.
 */
public final class AkTemplate {
    // TPMA_OBJECT bits (TPM 2.0 Part 2, §8.3.2).
    public static final int FIXED_TPM = 1 << 1;
    public static final int FIXED_PARENT = 1 << 4;
    public static final int SENSITIVE_DATA_ORIGIN = 1 << 5;
    public static final int USER_WITH_AUTH = 1 << 6;
    /**
     * Exempt from dictionary-attack protection. The AK's auth is empty, so lockout protects nothing,
     * but without this a node that loses power a few times (no orderly TPM2_Shutdown, the failure
     * counter grows) would get TPM_RC_LOCKOUT on every quote until the lockout expires.
     */
    public static final int NO_DA = 1 << 10;
    public static final int RESTRICTED = 1 << 16;
    public static final int SIGN = 1 << 18;
    public static final int ATTRIBUTES =
            FIXED_TPM | FIXED_PARENT | SENSITIVE_DATA_ORIGIN | USER_WITH_AUTH | NO_DA | RESTRICTED | SIGN;
    public static final int KEY_BITS = 2048;

    private AkTemplate() {}

    /** The marshalled TPMT_PUBLIC (Part 2, §12.2.4) passed to TPM2_CreatePrimary. */
    public static byte[] tpmtPublic() {
        return new TpmWriter()
                .u16(TpmAlg.RSA)
                .u16(TpmAlg.SHA256)
                .u32(ATTRIBUTES)
                .sized(new byte[0])               // authPolicy: none, the AK is used with its empty auth
                // TPMS_RSA_PARMS (§12.2.3.5): symmetric NULL (a signing key has none), scheme, bits, exponent.
                .u16(TpmAlg.NULL)
                .u16(TpmAlg.RSASSA).u16(TpmAlg.SHA256)
                .u16(KEY_BITS)
                .u32(0)
                .sized(new byte[0])               // unique: empty, the TPM fills in the modulus
                .toByteArray();
    }
}
