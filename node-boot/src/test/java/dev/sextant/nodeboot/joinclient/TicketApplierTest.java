package dev.sextant.nodeboot.joinclient;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TicketApplierTest {
    @ParameterizedTest
    @ValueSource(strings = {"../etc/shadow", "/etc/shadow", "etcd/../../x", "", "."})
    @DisplayName("a control-plane file name from a ticket cannot leave the PKI directory")
    void refusesEscapes(String name) {
        assertThrows(IOException.class, () -> TicketApplier.confined(Path.of("/pki"), name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"etcd/ca.key", "ca.crt"})
    @DisplayName("ordinary names, including subdirectories, stay below it")
    void allowsNames(String name) throws IOException {
        assertEquals(Path.of("/pki").resolve(name), TicketApplier.confined(Path.of("/pki"), name));
    }
}
