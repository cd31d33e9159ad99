package dev.sextant.nodeboot.failure;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What a fatal error after the node lock does.
 *
 * @param rebootDelay time to read the console before the reboot; "disabled" (or any negative value) only logs
 * @param console     console device the reason is also written to, when writable
 */
@ConfigurationProperties("sextant.failure")
public record FailureSettings(
        @Bindable(defaultValue = "60s") String rebootDelay,
        @Bindable(defaultValue = "/dev/console") Path console) {

    /** Empty when rebooting is disabled (tests, debugging). */
    public java.util.Optional<Duration> delay() {
        if (rebootDelay == null || rebootDelay.isBlank() || rebootDelay.equalsIgnoreCase("disabled")) {
            return java.util.Optional.empty();
        }
        String v = rebootDelay.trim().toLowerCase(java.util.Locale.ROOT);
        Duration d = v.endsWith("ms") ? Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)))
                : v.endsWith("s") ? Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)))
                : Duration.ofSeconds(Long.parseLong(v));
        return d.isNegative() ? java.util.Optional.empty() : java.util.Optional.of(d);
    }
}
