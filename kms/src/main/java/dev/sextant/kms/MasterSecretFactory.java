package dev.sextant.kms;

import dev.sextant.keys.KeyDerivation;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.Arrays;

/** Loads the master secret from the configured files and derives keys from it. */
@Factory
class MasterSecretFactory {

    /**
     * {@code @Context} makes the bean eager: a missing or short secret stops the service at start, where
     * the orchestrator sees it, instead of failing the first key request.
     */
    @Context
    MasterSecret masterSecret(
            @Value("${sextant.kms.master-secret-file}") String secretFile,
            @Value("${sextant.kms.salt-file}") String saltFile) {
        return MasterSecret.load(Path.of(secretFile), Path.of(saltFile));
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
