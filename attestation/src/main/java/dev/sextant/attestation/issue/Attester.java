package dev.sextant.attestation.issue;

import dev.sextant.proto.v1.AttestationDocument;

/**
 * Produces evidence. Knows nothing of policy: it takes only the verifier's fresh nonce and the
 * data to bind (for aTLS, SHA-256 of the certificate's SubjectPublicKeyInfo).
 * The quote's qualifying data is SHA-256(nonce || userData) (design decision 3).
 */
public interface Attester {
    AttestationDocument attest(byte[] nonce, byte[] userData) throws AttestationException;
}
