package dev.sextant.atls;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import org.junit.jupiter.api.DisplayName;

import java.security.SecureRandom;

@DisplayName("The evidence in a peer's aTLS certificate, checked with BouncyCastle (nodes, command line)")
class PeerEvidenceTest extends PeerEvidenceRules {
    PeerEvidenceTest() {
        super(new BouncyCastleEcdsa(new SecureRandom()));
    }
}
