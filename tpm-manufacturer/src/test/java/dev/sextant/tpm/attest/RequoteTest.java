package dev.sextant.tpm.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.tpmstructures.TpmWriter;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import dev.sextant.tpm.transport.SwtpmSocketTransport;
import dev.sextant.tpm.transport.TpmTransport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A PCR that moves between quote and read forces a second quote, so the document stays consistent. */
class RequoteTest {
    private static final int TPM_CC_QUOTE = 0x158;

    /** Lets the first TPM2_Quote through, then extends PCR 16 behind the attester's back. */
    private static final class ExtendAfterFirstQuote implements TpmTransport {
        private final TpmTransport inner;
        int quotes;

        ExtendAfterFirstQuote(TpmTransport inner) {
            this.inner = inner;
        }

        @Override
        public byte[] transmit(byte[] command) throws IOException {
            byte[] response = inner.transmit(command);
            int cc = ((command[6] & 0xff) << 24) | ((command[7] & 0xff) << 16) | ((command[8] & 0xff) << 8) | (command[9] & 0xff);
            if (cc == TPM_CC_QUOTE && ++quotes == 1) {
                inner.transmit(pcrExtend16());
            }
            return response;
        }

        // TPM2_PCR_Extend(16, sha256 = 00..01) with an empty-password session, marshalled by hand.
        private static byte[] pcrExtend16() {
            byte[] body = new TpmWriter().u32(16).u32(9).u32(0x40000009).u16(0).u8(0).u16(0)
                    .u32(1).u16(0x000B).bytes(new byte[32]).toByteArray();
            body[body.length - 1] = 1;
            return new TpmWriter().u16(0x8002).u32(10 + body.length).u32(0x182).bytes(body).toByteArray();
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }

    @Test
    @DisplayName("attest() quotes again when a PCR changed between its quote and its PCR read")
    void requotes() throws Exception {
        Swtpm.assumeAvailable();
        try (Swtpm swtpm = Swtpm.provisioned()) {
            swtpm.releaseClient();
            ExtendAfterFirstQuote transport = new ExtendAfterFirstQuote(new SwtpmSocketTransport(swtpm.host(), swtpm.port()));
            try (TpmClient client = new TpmClient(transport);
                 TpmAttester attester = new TpmAttester(client, Path.of("/nonexistent"))) {
                AttestationDocument doc = attester.attest(Purpose.ATLS_SERVER, new byte[8], new byte[0]);
                assertEquals(2, transport.quotes, "one quote invalidated by the extend, one consistent");
                TpmAttesterTest.assertSoundQuote(doc, new byte[8], new byte[0]);
            }
        }
    }
}
