package dev.sextant.atls;

import java.security.GeneralSecurityException;

/**
 * Makes the {@link HandshakeProof} a side puts into its minted certificate, bound to this handshake.
 * Called once per handshake, after the key is minted and before the certificate is signed.
 */
@FunctionalInterface
public interface HandshakeProver {
    /**
     * @param peerRandom the TLS random the PEER chose (a server: ClientHello.random), 32 bytes
     * @param spkiHash   SHA-256 of the SPKI of the certificate about to be presented
     * @return at most {@link HandshakeProof#MAX_BYTES} bytes
     * @throws GeneralSecurityException when no proof can be made: the side then presents no certificate
     */
    byte[] prove(byte[] peerRandom, byte[] spkiHash) throws GeneralSecurityException;
}
