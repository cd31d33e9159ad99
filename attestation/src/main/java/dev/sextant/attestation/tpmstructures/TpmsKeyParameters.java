package dev.sextant.attestation.tpmstructures;

/**
 * TPMU_PUBLIC_PARMS together with TPMU_PUBLIC_ID (TPM 2.0 Part 2, §12.2.3.7 and §12.2.3.2) for the
 * two key types Sextant reads. The unique field sits with its parameters so that a key is one value.
 */
public sealed interface TpmsKeyParameters permits TpmsRsaParameters, TpmsEccParameters {
    /** The object's symmetric definition; for a restricted decryption key a TPMT_SYM_DEF_OBJECT. */
    TpmSymDef symmetric();

    /** The signing or decryption scheme. */
    TpmScheme scheme();
}
