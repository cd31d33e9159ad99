package dev.sextant.nodeboot.unlock;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * The recovery endpoint a control plane serves while its state disk waits for its key at boot.
 *
 * @param port its own port (server-attested aTLS), apart from the bootstrapper's 7443
 */
@ConfigurationProperties("sextant.recovery")
public record RecoverySettings(@Bindable(defaultValue = "7444") int port) {
}
