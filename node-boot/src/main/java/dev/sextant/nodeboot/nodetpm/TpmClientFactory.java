package dev.sextant.nodeboot.nodetpm;

import dev.sextant.grpcsupport.training.TrainingRun;
import io.micronaut.context.annotation.Requires;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpm.transport.TpmTarget;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/**
 * The node's one connection to its TPM. swtpm serves a single connection and /dev/tpmrm0 is one
 * device, so the attester and the node lock share this client (it serialises commands itself).
 */
@Requires(notEnv = TrainingRun.ENVIRONMENT)
@Factory
final class TpmClientFactory {
    @Singleton
    @Bean(preDestroy = "close")
    TpmClient tpmClient(TpmSettings settings) throws TpmException {
        TpmClient client = TpmClient.open(TpmTarget.parse(settings.address()));
        client.startup();
        return client;
    }
}
