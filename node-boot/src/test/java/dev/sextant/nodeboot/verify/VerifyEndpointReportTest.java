package dev.sextant.nodeboot.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The VerifyService endpoint a node reports with its ticket requests")
class VerifyEndpointReportTest {
    @Test
    @DisplayName("the configured endpoint (sextant.node.join.verify-advertise: the host's forward to this node) as it is")
    void configuredEndpoint() {
        assertEquals("10.0.2.2:41234", new VerifyEndpointReport(" 10.0.2.2:41234 ", 7443).endpoint());
    }

    @Test
    @DisplayName("without a setting: the node's first IPv4 address that is up, not loopback, not link-local, or nothing")
    void ownAddress() {
        String endpoint = new VerifyEndpointReport("", 7443).endpoint();
        assertTrue(endpoint.isEmpty() || endpoint.matches("\\d+\\.\\d+\\.\\d+\\.\\d+:7443") && !endpoint.startsWith("127."), endpoint);
    }
}
