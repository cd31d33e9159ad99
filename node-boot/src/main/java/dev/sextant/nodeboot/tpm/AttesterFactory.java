package dev.sextant.nodeboot.tpm;

import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.tpm.attest.TpmAttester;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** The node's one attester: the TPM is a single device, so every user shares this instance. */
@Factory
final class AttesterFactory {
    @Singleton
    @Bean(preDestroy = "close")
    TpmAttester attester(TpmSettings settings) throws AttestationException {
        return TpmAttester.open(settings.address(), settings.eventLog());
    }
}
