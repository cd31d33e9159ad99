package dev.sextant.attestation.issue;

import dev.sextant.attestation.Purpose;
import dev.sextant.proto.v1.AttestationDocument;

/**
 * Produces evidence. Knows nothing of policy: it takes the purpose the evidence is for, the
 * verifier's fresh nonce and the data to bind (for aTLS, SHA-256 of the certificate's
 * SubjectPublicKeyInfo). The quote's qualifying data is
 * {@link dev.sextant.attestation.Qualification#of} of the three, or, when concurrent requests share
 * one quote ({@link QuoteBatcher}), the {@link dev.sextant.attestation.QuoteBatch} root over such
 * qualifications, with the document's batch path leading there.
 */
public interface Attester {
    AttestationDocument attest(Purpose purpose, byte[] nonce, byte[] userData) throws AttestationException;
}
