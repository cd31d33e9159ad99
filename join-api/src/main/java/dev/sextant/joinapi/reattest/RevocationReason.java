package dev.sextant.joinapi.reattest;

/** Why a node was revoked (docs/re-attestation.md): the {@code reason}'s tag in {@code revoked/<ak>}. */
public enum RevocationReason {
    /** Its quote, from its bound AK, differs from every admitted image (or PCR 15 is another cluster's). */
    PCR_MISMATCH,
    /** Its quote, from its bound AK, is of an image the set in force retired. */
    IMAGE_RETIRED,
    /** Valid evidence of this cluster from an AK bound to no node answered at its endpoint: its identity is on a second machine. */
    AK_MISMATCH,
    /** It missed {@code missed-periods} rounds in a row. */
    UNREACHABLE,
    /** The operator revoked it. */
    OPERATOR
}
