package dev.sextant.localcluster.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A node's SEXTANT-STATUS console line")
class NodeStatusLineTest {
    @Test
    @DisplayName("reads role, disk and Kubernetes state of a bootstrapped node, behind journal prefixes")
    void bootstrapped() {
        NodeStatusLine status = NodeStatusLine.parse("[  97.1] sextant-node[246]: SEXTANT-STATUS bootstrapped"
                + " role=worker disk=encrypted:5f1c0e2a-0000-4000-8000-000000000001 kubernetes=not-installed").orElseThrow();
        assertTrue(status.bootstrapped());
        assertEquals("worker", status.role());
        assertEquals("yes (5f1c0e2a-0000-4000-8000-000000000001)", status.diskSummary());
        assertEquals("not-installed", status.kubernetes());
    }

    @Test
    @DisplayName("keeps a failure's whole reason, spaces included")
    void failed() {
        NodeStatusLine status = NodeStatusLine.parse("SEXTANT-STATUS failed reason=join service refused: PCR 4 differs")
                .orElseThrow();
        assertFalse(status.bootstrapped());
        assertEquals("join service refused: PCR 4 differs", status.reason());
    }

    @Test
    @DisplayName("says what the node said when its disk is not encrypted, and 'unknown' for a missing field")
    void notEncrypted() {
        NodeStatusLine status = NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=worker disk=none").orElseThrow();
        assertEquals("no (none)", status.diskSummary());
        assertEquals("unknown", status.kubernetes());
    }

    @Test
    @DisplayName("is the last such line of the console; other lines are no status")
    void lastOfConsole() {
        assertTrue(NodeStatusLine.parse("Started sextant-node.service").isEmpty());
        assertEquals("control-plane", NodeStatusLine.last(List.of(
                "SEXTANT-STATUS failed reason=first boot", "noise",
                "SEXTANT-STATUS bootstrapped role=control-plane disk=none kubernetes=started", "more noise"))
                .orElseThrow().role());
        assertTrue(NodeStatusLine.last(List.of("a", "b")).isEmpty());
    }
}
