package dev.sextant.nodeboot.nodetpm;

import dev.sextant.grpcsupport.training.TrainingRun;
import io.micronaut.context.annotation.Requires;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.tpm.attest.TpmAttester;
import dev.sextant.tpm.command.TpmClient;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** The node's one attester, over the shared TPM client (which it does not own, see TpmClientFactory). */
@Requires(notEnv = TrainingRun.ENVIRONMENT)
@Factory
final class AttesterFactory {
    @Singleton
    @Bean(preDestroy = "close")
    TpmAttester attester(TpmClient client, TpmSettings settings) throws AttestationException {
        return new TpmAttester(client, settings.eventLog());
    }
}
