package dev.sextant.attestation.ecdsa;

import dev.sextant.attestation.testkit.EcdsaContract;
import org.junit.jupiter.api.DisplayName;

import java.security.SecureRandom;

@DisplayName("ECDSA with BouncyCastle's classes (nodes, command line)")
class BouncyCastleEcdsaTest extends EcdsaContract {
    private final Ecdsa ecdsa = new BouncyCastleEcdsa(new SecureRandom());

    @Override
    protected Ecdsa ecdsa() {
        return ecdsa;
    }
}
