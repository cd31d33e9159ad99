package dev.sextant.attestation.verify;

/**
 * Checks untrusted evidence against a policy. The only way to obtain an {@link AttestedState}.
 * Two implementations: the fixed-policy {@code DocumentVerifier} and the reloading one the join
 * service uses.
 */
public interface AttestationVerifier {
    /**
     * @param document serialized {@code AttestationDocument} from the peer (untrusted bytes)
     * @param nonce    the fresh value this verifier issued for this exchange
     * @param userData data the quote must be bound to (aTLS: SHA-256 of the peer certificate's SPKI)
     */
    AttestedState verify(byte[] document, byte[] nonce, byte[] userData) throws AttestationRejected;
}
