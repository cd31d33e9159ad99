package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmsEccParameters;
import dev.sextant.attestation.tpmstructures.TpmWriter;

import java.security.PublicKey;
import java.util.Optional;

/**
 * The fixed TPMT_PUBLIC templates of Sextant's attestation key (shared design decision "AK"): a
 * restricted signing key with nameAlg SHA-256, empty authPolicy and empty unique. Because the AK is
 * a primary key, the same template under the same owner seed always yields the same key: no key
 * blob has to be stored anywhere, and the AK certificate in NV tells which template made the AK.
 */
public enum AkTemplate {
    /**
     * NIST P-256, ECDSA-SHA256: what provisioning creates. A TPM and a software signer both quote
     * with it several times faster than with RSA-2048, and deriving the primary key is a scalar
     * multiplication instead of a prime search.
     */
    ECC_P256,
    /**
     * RSA-2048, RSASSA-SHA256, exponent 0 (= 65537): the template of TPMs provisioned before
     * ECC_P256. They keep it, since the join service binds disks and node names to the AK's name.
     */
    RSA_2048;

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

    /** The template an AK certificate's key was made from, if it is one of Sextant's. */
    public static Optional<AkTemplate> certifying(PublicKey certifiedKey) {
        return switch (certifiedKey.getAlgorithm()) {
            case "EC" -> Optional.of(ECC_P256);
            case "RSA" -> Optional.of(RSA_2048);
            default -> Optional.empty();
        };
    }

    /** The marshalled TPMT_PUBLIC (Part 2, §12.2.4) passed to TPM2_CreatePrimary. */
    public byte[] tpmtPublic() {
        TpmWriter w = new TpmWriter()
                .u16(this == ECC_P256 ? TpmAlg.ECC : TpmAlg.RSA)
                .u16(TpmAlg.SHA256)
                .u32(ATTRIBUTES)
                .sized(new byte[0]);              // authPolicy: none, the AK is used with its empty auth
        return switch (this) {
            // TPMS_ECC_PARMS (§12.2.3.6): symmetric NULL (a signing key has none), scheme, curve, kdf
            // NULL; unique: an empty TPMS_ECC_POINT, the TPM fills in x and y.
            case ECC_P256 -> w.u16(TpmAlg.NULL)
                    .u16(TpmAlg.ECDSA).u16(TpmAlg.SHA256)
                    .u16(TpmsEccParameters.NIST_P256)
                    .u16(TpmAlg.NULL)
                    .sized(new byte[0]).sized(new byte[0])
                    .toByteArray();
            // TPMS_RSA_PARMS (§12.2.3.5): symmetric NULL, scheme, bits, exponent; unique: empty modulus.
            case RSA_2048 -> w.u16(TpmAlg.NULL)
                    .u16(TpmAlg.RSASSA).u16(TpmAlg.SHA256)
                    .u16(2048)
                    .u32(0)
                    .sized(new byte[0])
                    .toByteArray();
        };
    }
}
