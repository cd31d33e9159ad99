package dev.sextant.ecdsanative;

import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.testkit.EcdsaContract;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("ECDSA in native code (join service)")
class NativeEcdsaTest extends EcdsaContract {
    private static Ecdsa ecdsa;

    @BeforeAll
    static void load() throws Exception {
        ecdsa = NativeEcdsa.load();
    }

    @Override
    protected Ecdsa ecdsa() {
        return ecdsa;
    }
}
