package dev.sextant.atls;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("An aTLS server under a handshake flood")
class HandshakeLimitsTest {
    private static final int FLOOD = 40;
    private static final HandshakeLimits LIMITS = new HandshakeLimits(2, 2, 4);
    private static final SoftwareEvidence NODE = new SoftwareEvidence("flooded");
    private static final SlowTpm TPM = new SlowTpm(NODE.attester);
    private static Server server;

    @BeforeAll
    static void start() throws Exception {
        server = AtlsServers.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)),
                        AtlsContexts.server(OwnAttestation.by(TPM), ClientVerification.anonymous()), LIMITS)
                .addService(new EchoKeyService()).build().start();
    }

    @AfterAll
    static void stop() throws Exception {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("serves a legitimate caller through the limits, with its quote made on the handshake pool")
    void servesALegitimateCaller() throws Exception {
        legitimateCall();
    }

    /** One gRPC call on a new connection that verifies the server's quote; throws if refused. */
    private static void legitimateCall() throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(NODE.verifier))).build();
        try {
            KeyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId("legit").setLength(32).build());
            assertTrue(NODE.verifier.verifications.get() > 0);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("caps one source's concurrent handshakes, keeps quotes off the event loop, and still completes a legitimate handshake")
    void floodFromOneSourceIsCappedWhileALegitimateHandshakeCompletes() throws Exception {
        int quotesBefore = TPM.calls.get();
        try (HandshakeFlood flood = new HandshakeFlood(InetAddress.getByName("127.0.0.2"), server.getPort(), FLOOD)) {
            flood.awaitStarted();
            legitimateCall();
            List<HandshakeFlood.Outcome> outcomes = flood.outcomes();
            long refused = outcomes.stream().filter(o -> !o.completed()).count();
            assertTrue(refused > 0, "some bogus handshakes were closed at once");
            assertTrue(outcomes.stream().filter(o -> !o.completed()).allMatch(o -> o.millis() < 10_000),
                    "refused handshakes fail fast rather than wait out the flood");
        }
        int quotes = TPM.calls.get() - quotesBefore;
        assertTrue(quotes < FLOOD, "the flood made " + quotes + " quotes for " + FLOOD + " connections: not capped");
        assertTrue(TPM.threads.stream().allMatch(t -> t.startsWith("atls-handshake-")),
                "quotes ran on the bounded handshake pool, not the event loop: " + TPM.threads);
    }

    @Test
    @DisplayName("handshake work beyond the bounded queue is shed: those handshakes fail at once instead of waiting")
    void excessWorkIsShed() throws Exception {
        SlowTpm tpm = new SlowTpm(NODE.attester);
        Server small = AtlsServers.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)),
                AtlsContexts.server(OwnAttestation.by(tpm), ClientVerification.anonymous()), new HandshakeLimits(FLOOD, 1, 1))
                .build().start();
        try (HandshakeFlood flood = new HandshakeFlood(InetAddress.getByName("127.0.0.3"), small.getPort(), FLOOD)) {
            List<HandshakeFlood.Outcome> outcomes = flood.outcomes();
            assertTrue(outcomes.stream().anyMatch(o -> !o.completed()), "no handshake was shed");
            assertTrue(tpm.calls.get() < FLOOD, tpm.calls.get() + " quotes for " + FLOOD + " handshakes: nothing was shed");
        } finally {
            small.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("the per-source count admits up to the cap and frees a slot when a handshake ends")
    void perSourceCount() throws Exception {
        PerSourceLimit handshakes = new PerSourceLimit(2);
        InetAddress attacker = InetAddress.getByName("192.0.2.1");
        assertTrue(handshakes.tryEnter(attacker));
        assertTrue(handshakes.tryEnter(attacker));
        assertTrue(!handshakes.tryEnter(attacker), "a third concurrent handshake from one source is refused");
        assertTrue(handshakes.tryEnter(InetAddress.getByName("192.0.2.2")), "another source is not affected");
        handshakes.leave(attacker);
        assertTrue(handshakes.tryEnter(attacker));
        handshakes.leave(attacker);
        handshakes.leave(attacker);
        assertEquals(0, handshakes.open(attacker));
    }

    @Test
    @DisplayName("one host cycling through the addresses of its IPv6 /64 for more unfinished handshakes: the /64 is one source, refused over the cap; another /64 and each IPv4 address count apart")
    void anIpv6Slash64IsOneSource() throws Exception {
        PerSourceLimit handshakes = new PerSourceLimit(2);
        assertTrue(handshakes.tryEnter(InetAddress.getByName("2001:db8:1:2::1")));
        assertTrue(handshakes.tryEnter(InetAddress.getByName("2001:db8:1:2:ffff::9")));
        assertTrue(!handshakes.tryEnter(InetAddress.getByName("2001:db8:1:2:abcd:1234:5678:9abc")),
                "a third address of the same /64 is the same source");
        assertTrue(handshakes.tryEnter(InetAddress.getByName("2001:db8:1:3::1")), "the next /64 is another source");
        assertTrue(handshakes.tryEnter(InetAddress.getByName("192.0.2.1")));
        assertTrue(handshakes.tryEnter(InetAddress.getByName("192.0.2.1")));
        assertTrue(handshakes.tryEnter(InetAddress.getByName("192.0.2.2")), "IPv4 addresses count one by one");
        handshakes.leave(InetAddress.getByName("2001:db8:1:2::77"));
        assertEquals(1, handshakes.open(InetAddress.getByName("2001:db8:1:2::1")), "any address of the /64 frees its slot");
    }

    /** A TPM that takes 30 ms per quote and serializes them, as a real one does. */
    static final class SlowTpm implements Attester {
        private final Attester delegate;
        final AtomicInteger calls = new AtomicInteger();
        final Set<String> threads = ConcurrentHashMap.newKeySet();

        SlowTpm(Attester delegate) { this.delegate = delegate; }

        @Override
        public synchronized AttestationDocument attest(Purpose purpose, byte[] nonce, byte[] userData)
                throws AttestationException {
            calls.incrementAndGet();
            threads.add(Thread.currentThread().getName());
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AttestationException("interrupted", e);
            }
            return delegate.attest(purpose, nonce, userData);
        }
    }
}
