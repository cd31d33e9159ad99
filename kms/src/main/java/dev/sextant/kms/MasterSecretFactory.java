package dev.sextant.kms;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.serviceconfig.KmsConfig;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.util.Arrays;

/** Loads the master secret from the configured files and derives keys from it. */
@Factory
class MasterSecretFactory {

    /**
     * {@code @Context} makes the bean eager: a missing or short secret stops the service at start, where
     * the orchestrator sees it, instead of failing the first key request.
     */
    @Context
    MasterSecret masterSecret(KmsConfig config) {
        return MasterSecret.load(config.masterSecretFile(), config.saltFile());
    }

    @Singleton
    KeyDerivation keyDerivation(MasterSecret masterSecret) {
        byte[] secret = masterSecret.secret();
        try {
            return new KeyDerivation(secret, masterSecret.salt());
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }
}
