package dev.sextant.attestation.verify;

import dev.sextant.attestation.Purpose;

/**
 * Checks untrusted evidence against a policy. The only way to obtain an {@link AttestedState}.
 * Two implementations: the fixed-policy {@code DocumentVerifier} and the reloading one the join
 * service uses.
 */
public interface AttestationVerifier {
    /**
     * @param document serialized {@code AttestationDocument} from the peer (untrusted bytes)
     * @param purpose  the purpose the evidence must have been made for: the context this verifier
     *                 runs in (an aTLS server verifying a client demands {@link Purpose#ATLS_CLIENT})
     * @param nonce    the fresh value this verifier issued for this exchange
     * @param userData data the quote must be bound to (aTLS: SHA-256 of the peer certificate's SPKI)
     */
    AttestedState verify(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) throws AttestationRejected;
}
