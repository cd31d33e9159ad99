package dev.sextant.atls;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.attestation.testkit.Mutation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AttestedState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.handler.ssl.SslContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("aTLS over gRPC/Netty/BoringSSL with software-TPM evidence and the real DocumentVerifier")
class AtlsHandshakeTest {
    /** Who attests. The other side verifies; a client that does not verify accepts any server, insecurely. */
    enum Mode {
        SERVER_ATTESTED(true, false), CLIENT_ATTESTED(false, true), MUTUAL(true, true);

        final boolean serverAttests;
        final boolean clientAttests;

        Mode(boolean serverAttests, boolean clientAttests) {
            this.serverAttests = serverAttests;
            this.clientAttests = clientAttests;
        }

        SslContext server(SoftwareEvidence server, SoftwareEvidence client) throws Exception {
            return AtlsContexts.server(serverAttests ? OwnAttestation.by(server.attester) : OwnAttestation.none(),
                    clientAttests ? ClientVerification.by(client.verifier) : ClientVerification.anonymous());
        }

        SslContext client(SoftwareEvidence server, SoftwareEvidence client) throws Exception {
            return AtlsContexts.client(clientAttests ? OwnAttestation.by(client.attester) : OwnAttestation.none(),
                    serverAttests ? ServerVerification.by(server.verifier) : ServerVerification.insecureAcceptAnyServer());
        }
    }

    private static SoftwareTpmAttester serverNode;
    private static SoftwareTpmAttester clientNode;

    private SoftwareEvidence goodServer;
    private SoftwareEvidence goodClient;

    @BeforeAll
    static void makeNodes() {
        serverNode = SoftwareEvidence.node("server");
        clientNode = SoftwareEvidence.node("client");
    }

    @BeforeEach
    void freshCounters() {
        goodServer = new SoftwareEvidence(serverNode);
        goodClient = new SoftwareEvidence(clientNode);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    @DisplayName("a call succeeds when the attesting side's evidence is fresh, bound to its key and trusted")
    void goodEvidenceIsAccepted(Mode mode) throws Exception {
        try (GrpcPair pair = new GrpcPair(mode.server(goodServer, goodClient), mode.clientAttests)) {
            GrpcPair.Reply reply = pair.call(mode.client(goodServer, goodClient));

            assertArrayEquals(mode.clientAttests ? goodClient.node.akName() : new byte[0],
                    reply.clientAkSeenByService(), "the service method sees the AK name the server verified");
            assertArrayEquals(mode.serverAttests ? goodServer.node.akName() : new byte[0],
                    reply.serverStateSeenByClient().map(AttestedState::akName).orElse(new byte[0]),
                    "the client application sees the AK name it verified");
            assertEquals(mode.clientAttests ? 1 : 0, goodClient.verifier.verifications.get());
            assertEquals(mode.serverAttests ? 1 : 0, goodServer.verifier.verifications.get());
        }
    }

    @ParameterizedTest(name = "{0}, server quotes a stale nonce")
    @EnumSource(value = Mode.class, names = {"SERVER_ATTESTED", "MUTUAL"})
    @DisplayName("a server with stale evidence fails the handshake on the client, in every mode it attests")
    void staleServerFailsTheHandshake(Mode mode) throws Exception {
        SoftwareEvidence server = new SoftwareEvidence("server", Mutation.STALE_NONCE);
        try (GrpcPair pair = new GrpcPair(mode.server(server, goodClient), mode.clientAttests)) {
            assertRefusedInHandshake(pair, mode.client(server, goodClient));
            assertEquals(1, server.verifier.verifications.get());
        }
    }

    @ParameterizedTest(name = "{0}, client quotes a stale nonce")
    @EnumSource(value = Mode.class, names = {"CLIENT_ATTESTED", "MUTUAL"})
    @DisplayName("a client with stale evidence fails the handshake on the server, in every mode it attests")
    void staleClientFailsTheHandshake(Mode mode) throws Exception {
        SoftwareEvidence client = new SoftwareEvidence("client", Mutation.STALE_NONCE);
        try (GrpcPair pair = new GrpcPair(mode.server(goodServer, client), true)) {
            assertRefusedInHandshake(pair, mode.client(goodServer, client));
            assertEquals(1, client.verifier.verifications.get());
        }
    }

    @ParameterizedTest(name = "server-attested, {0}")
    @EnumSource(value = Mutation.class, names = {"OTHER_USER_DATA", "OTHER_PURPOSE", "FOREIGN_CA", "FLIP_SIGNATURE", "BAD_PCR_DIGEST"})
    @DisplayName("every verifier rejection reaches the handshake: another TLS key, another purpose (a VerifyService quote),"
            + " a foreign EK CA, a bad signature, bad PCRs")
    void verifierRejectionsFailTheHandshake(Mutation mutation) throws Exception {
        SoftwareEvidence server = new SoftwareEvidence("server", mutation);
        try (GrpcPair pair = new GrpcPair(Mode.SERVER_ATTESTED.server(server, goodClient), false)) {
            assertRefusedInHandshake(pair, Mode.SERVER_ATTESTED.client(server, goodClient));
        }
    }

    @Test
    @DisplayName("a client without an attester is refused by a server that verifies clients")
    void unattestedClientIsRefused() throws Exception {
        SslContext verifiesClients = AtlsContexts.server(OwnAttestation.none(), ClientVerification.by(goodClient.verifier));
        try (GrpcPair pair = new GrpcPair(verifiesClients, true)) {
            SslContext unattested = AtlsContexts.client(OwnAttestation.none(), ServerVerification.insecureAcceptAnyServer());
            assertRefusedInHandshake(pair, unattested);
        }
    }

    @Test
    @DisplayName("an interceptor that requires attestation refuses calls on an unattested connection")
    void interceptorRefusesUnattestedCalls() throws Exception {
        try (GrpcPair pair = new GrpcPair(AtlsContexts.server(OwnAttestation.none(), ClientVerification.anonymous()), true)) {
            SslContext unattested = AtlsContexts.client(OwnAttestation.none(), ServerVerification.insecureAcceptAnyServer());
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pair.callOnNewChannel(unattested));

            assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
            assertEquals(0, pair.service.invocations.get());
        }
    }

    @Test
    @DisplayName("a client that accepts any server says so with an INSECURE warning at every handshake; one that verifies, never")
    void acceptingAnyServerWarnsEveryHandshake() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger logger = (Logger) LoggerFactory.getLogger(AnyServerTrustManager.class);
        logger.addAppender(logs);
        try (GrpcPair pair = new GrpcPair(Mode.MUTUAL.server(goodServer, goodClient), true)) {
            SslContext acceptsAnyServer = Mode.CLIENT_ATTESTED.client(goodServer, goodClient);
            pair.callOnNewChannel(acceptsAnyServer);
            pair.callOnNewChannel(acceptsAnyServer);
            pair.callOnNewChannel(Mode.MUTUAL.client(goodServer, goodClient));
        } finally {
            logger.detachAppender(logs);
        }
        assertEquals(2, logs.list.stream().filter(e -> e.getLevel() == Level.WARN
                && e.getFormattedMessage().startsWith("INSECURE: aTLS accepted a server without verifying")).count());
    }

    @Test
    @DisplayName("three sequential channels from one client context are three full handshakes, each attested and verified")
    void noResumption() throws Exception {
        SslContext client = Mode.MUTUAL.client(goodServer, goodClient);
        try (GrpcPair pair = new GrpcPair(Mode.MUTUAL.server(goodServer, goodClient), true)) {
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(goodClient.node.akName(), pair.callOnNewChannel(client));
            }
        }
        assertEquals(3, goodServer.attester.calls.get(), "server minted and attested per connection");
        assertEquals(3, goodClient.attester.calls.get(), "client minted and attested per connection");
        assertEquals(3, goodClient.verifier.verifications.get(), "server verified per connection");
        assertEquals(3, goodServer.verifier.verifications.get(), "client verified per connection");
    }

    private static void assertRefusedInHandshake(GrpcPair pair, SslContext client) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pair.callOnNewChannel(client));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "a handshake failure, not an RPC error");
        assertEquals(0, pair.service.invocations.get(), "the service method never runs");
    }
}
