package dev.sextant.attestation.tpmstructures;

/** TPMU_ATTEST (TPM 2.0 Part 2, §10.12.11): the type-specific part of a TPMS_ATTEST that Sextant reads. */
public sealed interface TpmsAttested permits TpmsQuoteInfo, TpmsCertifyInfo {
}
