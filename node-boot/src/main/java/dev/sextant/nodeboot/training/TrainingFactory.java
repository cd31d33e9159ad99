package dev.sextant.nodeboot.training;

import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.grpcsupport.training.TrainingRun;
import dev.sextant.nodeboot.nodelock.PcrMarker;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.transport.TpmTransport;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The TPM of a class-data-sharing training run ({@link TrainingRun}): an image build has none, so
 * every command and every quote is refused, and PCR 15 reads as marked, which keeps the node lock
 * closed from the start: no init and no join can even begin. The boot decision (unlock, join, init)
 * does not run in training, so start-up needs no TPM and the run still reaches a serving gRPC port.
 */
@Factory
@Requires(env = TrainingRun.ENVIRONMENT)
final class TrainingFactory {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingFactory.class);
    private static final String NO_TPM = "no TPM in a class-data-sharing training run";

    @Singleton
    TpmClient tpmClient() {
        LOG.warn("{}: every TPM command is refused and the node lock stays closed", NO_TPM);
        return new TpmClient(new RefusingTransport());
    }

    @Singleton
    Attester attester() {
        return (purpose, nonce, userData) -> {
            throw new AttestationException(NO_TPM);
        };
    }

    @Singleton
    PcrMarker pcrMarker() {
        return new PcrMarker() {
            @Override
            public void mark(byte[] clusterId) throws IOException {
                throw new IOException(NO_TPM);
            }

            @Override
            public boolean alreadyMarked() {
                return true;
            }
        };
    }

    private static final class RefusingTransport implements TpmTransport {
        @Override
        public byte[] transmit(byte[] command) throws IOException {
            throw new IOException(NO_TPM);
        }

        @Override
        public void close() {
        }
    }
}
