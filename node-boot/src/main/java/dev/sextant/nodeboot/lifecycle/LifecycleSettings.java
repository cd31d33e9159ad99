package dev.sextant.nodeboot.lifecycle;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * What the bootstrapper does once the node is bootstrapped.
 *
 * @param exitAfterBootstrap exit (status 0) so the process that held the master secret or the join
 *                           ticket is gone; systemd starts it again in verify-only mode (the node
 *                           lock is found taken). False in tests that keep using the process.
 * @param exitDelay          time for the last answer (the init stream's end) to reach the caller
 */
@ConfigurationProperties("sextant.bootstrap")
public record LifecycleSettings(
        @Bindable(defaultValue = "true") boolean exitAfterBootstrap,
        @Bindable(defaultValue = "2s") Duration exitDelay) {
}
