package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestationRejected;

import java.util.Optional;

/**
 * Checks the peer's {@link HandshakeProof} inside the handshake, after its attestation passed: a
 * rejection fails the handshake as a failed quote does. The inputs are the ones the verifier side
 * trusts: the random THIS side chose and SHA-256 of the SPKI whose key completes the handshake.
 */
@FunctionalInterface
public interface HandshakeProofCheck {
    /** Demands nothing: the peer's attestation is all that is checked. */
    HandshakeProofCheck NONE = (proof, ownRandom, spkiHash) -> { };

    /**
     * @param proof     the peer certificate's proof extension, empty when it carries none
     * @param ownRandom the TLS random this side chose (a client: ClientHello.random)
     * @param spkiHash  SHA-256 of the peer certificate's SPKI
     * @throws AttestationRejected when the proof is missing or does not hold for this handshake
     */
    void check(Optional<byte[]> proof, byte[] ownRandom, byte[] spkiHash) throws AttestationRejected;
}
