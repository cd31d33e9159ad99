package dev.sextant.atls;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;

/**
 * The aTLS certificate's second, optional extension: a proof the presenting side makes of something
 * beside its measurements (a join service: its control-plane role, docs/atls.md), bound to this
 * handshake by the same two values the quote is bound to: the peer's TLS random and SHA-256 of the
 * minted certificate's SPKI. What the bytes mean is the prover's and the checker's business; aTLS
 * only carries them and hands them to the check inside the handshake, so a peer that fails the check
 * fails the handshake as one whose quote fails.
 */
public final class HandshakeProof {
    /** 2.25.&lt;UUID f6fa278a-883c-4075-a716-02b0964b9961 as a decimal integer&gt; (ITU-T X.667), as the variants' OIDs. */
    public static final ASN1ObjectIdentifier OID = new ASN1ObjectIdentifier("2.25.328288963167346782311737863752779536737");
    /** A proof is a key and a signature or two: anything larger is refused before it is handed on. */
    public static final int MAX_BYTES = 1024;

    private HandshakeProof() {}
}
