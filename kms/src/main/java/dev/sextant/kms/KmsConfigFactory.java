package dev.sextant.kms;

import dev.sextant.serviceconfig.KmsConfig;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.env.Environment;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.Map;

/**
 * Binds the KMS's configuration once, from every source Micronaut reads; the names and defaults
 * live in {@link KmsConfig}, and a malformed value stops the KMS at start-up with the property's name.
 */
@Factory
class KmsConfigFactory {

    @Singleton
    KmsConfig kmsConfig(Environment environment) {
        Map<String, String> properties = new HashMap<>();
        for (String key : KmsConfig.KEYS) {
            environment.getProperty(key, String.class).ifPresent(value -> properties.put(key, value));
        }
        return KmsConfig.from(properties);
    }
}
