package dev.sextant.joinapi;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.env.Environment;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.Map;

/**
 * Binds the join service's configuration once, from every source Micronaut reads (application.yml,
 * the files in MICRONAUT_CONFIG_FILES, system properties, environment variables): the names and
 * defaults live in {@link JoinServiceConfig}, and a malformed value stops the service at start-up
 * with the property's name.
 */
@Factory
class JoinServiceConfigFactory {

    @Singleton
    JoinServiceConfig joinServiceConfig(Environment environment) {
        Map<String, String> properties = new HashMap<>();
        for (String key : JoinServiceConfig.KEYS) {
            environment.getProperty(key, String.class).ifPresent(value -> properties.put(key, value));
        }
        return JoinServiceConfig.from(properties);
    }
}
