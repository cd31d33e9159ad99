package dev.sextant.cli.remote;

import io.grpc.Status;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.net.UnknownHostException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The failures the loopback table cannot stage cheaply; nothing listening and time-outs are in CliMistakesTest. */
@DisplayName("a failed call, in words")
class ConnectionFailuresTest {
    private static final NodeEndpoint NODE = NodeEndpoint.parse("192.0.2.10:9000");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static String describe(Status status) {
        return ConnectionFailures.describe(NODE, status.asRuntimeException(), TIMEOUT).getMessage();
    }

    @Test
    @DisplayName("a TLS handshake that fails without an attestation verdict names the endpoint and asks whether it is the right port")
    void handshake() {
        assertEquals("the TLS handshake with 192.0.2.10:9000 failed (no cipher suites in common):"
                        + " is --endpoint a Sextant node's attested gRPC port?",
                describe(Status.UNAVAILABLE.withCause(new SSLHandshakeException("no cipher suites in common"))));
    }

    @Test
    @DisplayName("a host name that does not resolve says so")
    void unknownHost() {
        assertEquals("cannot resolve the host of 192.0.2.10:9000: check --endpoint",
                describe(Status.UNAVAILABLE.withCause(new UnknownHostException("node-a"))));
    }

    @Test
    @DisplayName("an endpoint that is not a Sextant node (UNIMPLEMENTED) is told as such")
    void notSextant() {
        assertEquals("192.0.2.10:9000 does not offer this call (not a Sextant endpoint, or another version):"
                + " Method not found: sextant.v1.VerifyService/GetAttestation",
                describe(Status.UNIMPLEMENTED.withDescription("Method not found: sextant.v1.VerifyService/GetAttestation")));
    }

    @Test
    @DisplayName("a hostile endpoint's error text reaches the terminal without control sequences")
    void hostileDescription() {
        assertEquals("192.0.2.10:9000 failed internally: ?[2J?]0;owned??", describe(Status.INTERNAL.withDescription("\u001b[2J\u001b]0;owned\u0007\n")));
    }

    @Test
    @DisplayName("an endpoint is HOST:PORT with a port in 1..65535; an IPv6 host goes in brackets")
    void endpoints() {
        assertEquals(new NodeEndpoint("::1", 9000), NodeEndpoint.parse("[::1]:9000"));
        assertEquals("[::1]:9000", NodeEndpoint.parse("[::1]:9000").toString());
        for (String bad : new String[] {"node", "node:", ":9000", "node:http", "node:0", "node:65536"}) {
            try {
                NodeEndpoint.parse(bad);
                throw new AssertionError(bad + " was accepted");
            } catch (IllegalArgumentException expected) {
                // the message is checked through the CLI in CliMistakesTest
            }
        }
    }
}
