package dev.sextant.tpm.transport;

import java.io.IOException;

/**
 * Carries one marshalled TPM 2.0 command to a TPM and returns its complete response. Callers
 * serialize access: a TPM processes one command at a time and neither transport queues.
 */
public interface TpmTransport extends AutoCloseable {
    byte[] transmit(byte[] command) throws IOException;

    @Override
    void close() throws IOException;
}
