package dev.sextant.joinapi.identity;

import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.tpm.attest.TpmAttester;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.nio.file.Path;

/**
 * The server side of mutual aTLS: with {@code sextant.join.atls.server-tpm} set (for example
 * {@code device:/dev/tpmrm0} on the control-plane node, {@code swtpm:127.0.0.1:2321} in tests), the
 * join service attests itself with that TPM in every handshake, so a joining node can check it is
 * handing its CSR to the real cluster (Constellation's nodes could not). Every handshake then
 * waits for one TPM quote, serialized on the one TPM: the price of mutual attestation.
 */
@Factory
@Requires(property = JoinServiceConfig.ATLS_SERVER_TPM)
class ServerAttesterFactory {

    @Singleton
    @Bean(preDestroy = "close")
    TpmAttester serverAttester(JoinServiceConfig config) {
        String tpm = config.atls().serverTpm().orElseThrow(() -> new IllegalStateException(
                JoinServiceConfig.ATLS_SERVER_TPM + " is blank"));
        Path eventLog = config.atls().serverEventLog();
        try {
            return TpmAttester.open(tpm, eventLog);
        } catch (AttestationException e) {
            throw new IllegalStateException("cannot attest the join service with TPM " + tpm + ": " + e.getMessage(), e);
        }
    }
}
