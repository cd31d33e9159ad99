package dev.sextant.localcluster.mini.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A node's SEXTANT-STATUS console line")
class NodeStatusLineTest {
    @Test
    @DisplayName("reads role, disk, Kubernetes state, how it became a member and since when, behind journal prefixes")
    void bootstrapped() {
        NodeStatusLine status = NodeStatusLine.parse("[  97.1] sextant-node[246]: SEXTANT-STATUS bootstrapped"
                + " role=worker disk=encrypted:5f1c0e2a-0000-4000-8000-000000000001 kubernetes=not-installed"
                + " via=rejoin since=2026-11-24T03:14:37Z").orElseThrow();
        assertTrue(status.bootstrapped());
        assertEquals("worker", status.role());
        assertEquals("yes (5f1c0e2a-0000-4000-8000-000000000001)", status.diskSummary());
        assertEquals("not-installed", status.kubernetes());
        assertEquals("rejoin", status.via());
        assertEquals("2026-11-24T03:14:37Z", status.since());
        assertEquals("unknown", status.etcd(), "a line from before etcd came to the nodes");
    }

    @Test
    @DisplayName("reads what a control plane is in etcd, the field appended after since")
    void etcdStanding() {
        NodeStatusLine status = NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=control-plane"
                + " disk=encrypted:5f1c0e2a-0000-4000-8000-000000000001 kubernetes=not-installed via=init"
                + " since=2026-11-24T03:14:37Z etcd=member").orElseThrow();
        assertEquals("2026-11-24T03:14:37Z", status.since());
        assertEquals("member", status.etcd());
        assertEquals("init", status.via());
    }

    @Test
    @DisplayName("takes a bootstrapped line without via and since (an older node's) for no status line")
    void olderLineIsNoStatus() {
        assertTrue(NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=worker disk=none kubernetes=started").isEmpty());
        assertTrue(NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=worker disk=none via=join").isEmpty());
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
        NodeStatusLine status = NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=worker disk=none via=join since=2026-11-24T03:14:37Z")
                .orElseThrow();
        assertEquals("no (none)", status.diskSummary());
        assertEquals("unknown", status.kubernetes());
    }

    @Test
    @DisplayName("is the last such line of the console; other lines are no status")
    void lastOfConsole() {
        assertTrue(NodeStatusLine.parse("Started sextant-node.service").isEmpty());
        assertEquals("control-plane", NodeStatusLine.last(List.of(
                "SEXTANT-STATUS failed reason=first boot", "noise",
                "SEXTANT-STATUS bootstrapped role=control-plane disk=none kubernetes=started via=init since=2026-11-24T03:14:37Z",
                "more noise"))
                .orElseThrow().role());
        assertTrue(NodeStatusLine.last(List.of("a", "b")).isEmpty());
    }
}
