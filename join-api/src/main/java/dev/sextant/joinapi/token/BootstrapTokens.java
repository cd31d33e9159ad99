package dev.sextant.joinapi.token;

import dev.sextant.joinapi.Refusal;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.Optional;

/** Bootstrap tokens for joining nodes; a control plane without Kubernetes has none to give. */
public interface BootstrapTokens {
    /** A new token, or empty when there is no Kubernetes API to create it in. */
    Optional<BootstrapToken> create() throws Refusal;

    /** A control plane whose Kubernetes is not installed: tickets carry keys and certificates, no token. */
    @Singleton
    @Requires(property = "sextant.join.kubernetes.enabled", value = "false")
    final class None implements BootstrapTokens {
        @Override
        public Optional<BootstrapToken> create() {
            return Optional.empty();
        }
    }
}
