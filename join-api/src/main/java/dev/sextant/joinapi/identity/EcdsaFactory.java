package dev.sextant.joinapi.identity;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.ecdsanative.NativeEcdsa;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join service's ECDSA for aTLS (its minted certificates, the joiners' self-signatures and
 * quotes): native code, because the service verifies one handshake after another and the native
 * provider's one-time load is paid here at start-up, when the aTLS server is built. Where the
 * provider cannot load (another platform, a temporary directory it cannot use), BouncyCastle does
 * the same checks more slowly, and the start-up log says so.
 */
@Factory
class EcdsaFactory {
    private static final Logger LOG = LoggerFactory.getLogger(EcdsaFactory.class);

    @Singleton
    Ecdsa ecdsa() {
        long start = System.nanoTime();
        try {
            Ecdsa ecdsa = NativeEcdsa.load();
            LOG.info("aTLS signatures in native code (provider loaded and self-tested in {} ms)",
                    (System.nanoTime() - start) / 1_000_000);
            return ecdsa;
        } catch (GeneralSecurityException | LinkageError e) {
            LOG.warn("aTLS signatures with BouncyCastle: the native provider is unavailable here ({})", e.toString());
            return new BouncyCastleEcdsa(new SecureRandom());
        }
    }
}
