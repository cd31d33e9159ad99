package dev.sextant.localcluster.mini.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The waits on a booting node")
class NodeWaitsTest {
    @Test
    @DisplayName("show the last console line with text, without terminal colour codes")
    void lastConsoleLine() {
        assertEquals("(1 of 2) Job systemd-networkd.service/start running",
                NodeWaits.lastLine(List.of("first", "\u001B[0;1;31m*\u001B[0m (1 of 2) Job systemd-networkd.service/start running",
                        "", "  "), 160).replace("* ", ""));
        assertEquals("(nothing yet)", NodeWaits.lastLine(List.of(), 160));
    }
}
