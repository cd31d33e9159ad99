package dev.sextant.nodeboot.training;

import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.Purpose;
import dev.sextant.grpcsupport.training.TrainingRun;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.LockResult;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The class-data-sharing training run of an image build has no TPM: the bootstrapper must still
 * build every bean start-up builds, and none of them may ever act as a node.
 */
@DisplayName("The bootstrapper in a class-data-sharing training run")
class TrainingEnvironmentTest {
    private ApplicationContext context;

    @BeforeEach
    void start() {
        context = ApplicationContext.builder().environments(TrainingRun.ENVIRONMENT).start();
    }

    @AfterEach
    void stop() {
        context.close();
    }

    @Test
    @DisplayName("starts with the node lock closed, so neither init nor join can take it")
    void lockClosed() throws Exception {
        NodeLock lock = context.getBean(NodeLock.class);
        assertTrue(lock.isLocked());
        assertInstanceOf(LockResult.AlreadyLocked.class, lock.tryLockOnce(LockHolder.INIT, new byte[32]));
    }

    @Test
    @DisplayName("refuses every quote, naming the training run")
    void noQuotes() {
        AttestationException e = assertThrows(AttestationException.class,
                () -> context.getBean(Attester.class).attest(Purpose.VERIFY, new byte[32], new byte[0]));
        assertTrue(e.getMessage().contains("training run"), e.getMessage());
    }

    @Test
    @DisplayName("refuses every TPM command")
    void noTpmCommands() {
        TpmClient tpm = context.getBean(TpmClient.class);
        assertThrows(TpmException.class, () -> tpm.pcr().readAll(TpmAlg.SHA256));
    }

    @Test
    @DisplayName("has the training run that ends the program once it serves")
    void endsOnceServing() {
        assertEquals(1, context.getBeansOfType(TrainingRun.class).size());
    }
}
