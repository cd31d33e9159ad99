package dev.sextant.localcluster.qemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A node's configuration")
class NodeConfigTest {
    private final HostTools tools = new HostTools(Path.of("/q"), Path.of("/s"), Path.of("/c"), Path.of("/v"));
    private final NodeConfig node = NodeConfig.of(tools, Path.of("/img"), Path.of("/w"), List.of(7443));

    @Test
    @DisplayName("ends with the JVM, under TCG, unless told otherwise")
    void defaults() {
        assertEquals(Lifetime.TIED_TO_JVM, node.lifetime());
        assertEquals(Accel.TCG, node.accel());
        assertEquals(Lifetime.DETACHED, node.withLifetime(Lifetime.DETACHED).lifetime());
    }

    @Test
    @DisplayName("refuses a host port for a guest port it does not forward")
    void hostPortOnlyForForwardedGuestPorts() {
        var e = assertThrows(IllegalArgumentException.class, () -> node.withHostPorts(Map.of(9090, 40000)));
        assertTrue(e.getMessage().contains("9090"), e.getMessage());
    }

    @Test
    @DisplayName("refuses setting names that are not letters, digits, '.', '_' and '-'")
    void settingNamesAreChecked() {
        var e = assertThrows(IllegalArgumentException.class, () -> node.withSettings(Map.of("bad name", "x")));
        assertTrue(e.getMessage().contains("bad name"), e.getMessage());
    }
}
