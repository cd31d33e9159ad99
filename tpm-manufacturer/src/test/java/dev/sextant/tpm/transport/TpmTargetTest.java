package dev.sextant.tpm.transport;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TpmTargetTest {
    @Test
    @DisplayName("swtpm:HOST:PORT names swtpm's TCP data port")
    void parsesSwtpm() {
        assertEquals(new TpmTarget.Swtpm("127.0.0.1", 2321), TpmTarget.parse("swtpm:127.0.0.1:2321"));
    }

    @Test
    @DisplayName("device:PATH names a TPM character device")
    void parsesDevice() {
        assertEquals(new TpmTarget.Device(Path.of("/dev/tpmrm0")), TpmTarget.parse("device:/dev/tpmrm0"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"swtpm:127.0.0.1:2321", "device:/dev/tpmrm0", "swtpm:localhost:1"})
    @DisplayName("an argument survives parse and print unchanged")
    void roundTrips(String argument) {
        assertEquals(argument, TpmTarget.parse(argument).toArgument());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/dev/tpmrm0", "swtpm:2321", "swtpm:host:", "swtpm:host:abc", "swtpm:host:70000",
        "device:", "device:dev/tpm0", "mssim:127.0.0.1:2321"})
    @DisplayName("a malformed argument is rejected with a message that shows the expected form")
    void rejects(String argument) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TpmTarget.parse(argument));
        assertTrue(e.getMessage().contains("swtpm") || e.getMessage().contains("device"), e.getMessage());
    }
}
