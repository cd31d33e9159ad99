package dev.sextant.attestation.verify;

/** Why a document was rejected. Every value has at least one named row in the rejection matrix. */
public enum Reason {
    /** The bytes are not a well-formed document or TPM structure (truncated, oversized, garbage). */
    MALFORMED,
    /** The document is for another attestation variant than the verifier enforces. */
    WRONG_VARIANT,
    /** The AK does not chain to the configured EK CA, or is not bound to that EK. */
    UNTRUSTED_AK,
    /** The quote signature does not verify with the AK. */
    BAD_SIGNATURE,
    /** The quote's qualifying data is not the expected one for this nonce (stale, replayed, or for another nonce). */
    NONCE_MISMATCH,
    /** The quote was made for another purpose (e.g. a VerifyService quote offered as aTLS evidence). */
    WRONG_PURPOSE,
    /** The quote's qualifying data matches the nonce but not this user data (another TLS key). */
    KEY_BINDING,
    /** The reported PCR values do not digest to the quoted pcrDigest, or the selection is incomplete. */
    PCR_DIGEST_MISMATCH,
    /** An enforced measurement differs from the expected value (of every image the set admits). */
    PCR_MISMATCH,
    /** The PCRs are those of an image the measurement set has retired. */
    IMAGE_RETIRED,
    /** The event log does not replay to the quoted PCR values. */
    EVENT_LOG_MISMATCH
}
