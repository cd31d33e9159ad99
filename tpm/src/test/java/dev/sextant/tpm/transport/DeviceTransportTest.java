package dev.sextant.tpm.transport;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeviceTransportTest {
    private static final Path TPMRM0 = Path.of("/dev/tpmrm0");

    @Test
    @DisplayName("a missing device fails to open with an IOException naming the device")
    void missingDevice() {
        IOException e = assertThrows(IOException.class, () -> new DeviceTransport(Path.of("/nonexistent/tpmrm9")));
        assertTrue(e.getMessage().contains("/nonexistent/tpmrm9"), e.getMessage());
    }

    @Test
    @DisplayName("on a host with /dev/tpmrm0, TPM2_GetRandom(8) round-trips through the device")
    void realDevice() throws IOException {
        boolean present = Files.isWritable(TPMRM0);
        if (!present) {
            System.err.println("SKIPPED: " + TPMRM0 + " is absent or not writable on this host");
        }
        Assumptions.assumeTrue(present, TPMRM0 + " is absent or not writable on this host");
        try (DeviceTransport device = new DeviceTransport(TPMRM0)) {
            byte[] response = device.transmit(new byte[] {
                (byte) 0x80, 0x01, 0, 0, 0, 0x0c, 0, 0, 0x01, 0x7b, 0, 8});
            assertEquals(20, response.length);
        }
    }
}
