package dev.sextant.attestation.testkit;

/** One knob per verifier rule: each breaks exactly one property of an otherwise valid document. */
public enum Mutation {
    /** The AK certificate certifies another key than the one that signs the quote. */
    WRONG_AK,
    /** EK and AK certificates come from a CA the verifier does not trust. */
    FOREIGN_CA,
    /** The AK binding extension names another AK. */
    BROKEN_BINDING,
    /** The AK lacks the restricted attribute, so it could sign forged TPMS_ATTEST data. */
    UNRESTRICTED_AK,
    /** The quote is qualified with an earlier, fixed nonce instead of the verifier's. */
    STALE_NONCE,
    /** The quote is qualified under another purpose's label than asked for (a VerifyService quote relayed into aTLS). */
    OTHER_PURPOSE,
    /** Quote and document are bound to other user data (another TLS key). */
    OTHER_USER_DATA,
    /** One bit of the quote signature is flipped. */
    FLIP_SIGNATURE,
    /** The document reports a PCR 24 that the quote does not cover. */
    EXTRA_PCR,
    /** The document leaves out PCR 23. */
    MISSING_PCR,
    /** The quote selects PCRs 0..22 only. */
    PARTIAL_SELECTION,
    /** The quote's pcrDigest does not match the reported values. */
    BAD_PCR_DIGEST,
    /** The document says it is for another variant. */
    WRONG_VARIANT,
    /** One event digest in the log is changed after the PCRs were computed. */
    TAMPER_EVENT_LOG
}
