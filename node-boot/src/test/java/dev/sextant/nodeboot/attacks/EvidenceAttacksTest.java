package dev.sextant.nodeboot.attacks;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import io.netty.handler.ssl.SslContext;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attacks on a node's evidence, against the real node-boot gRPC server (VerifyEndpoint behind
 * {@code AttestedServerTls}) with a provisioned swtpm as the node's TPM. The attacker has no TPM.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on a node's evidence: relays and floods of its aTLS handshakes")
class EvidenceAttacksTest implements TestPropertyProvider {
    private Swtpm swtpm;

    @Inject
    GrpcEmbeddedServer node;

    @Inject
    Attester nodeAttester;

    private DocumentVerifier trustsTheNode;

    @Override
    public Map<String, String> getProperties() {
        Swtpm.assumeAvailable();
        try {
            swtpm = Swtpm.provisioned();
            swtpm.releaseClient(); // the node opens its own connection; swtpm serves one at a time
        } catch (Exception e) {
            throw new IllegalStateException("starting swtpm", e);
        }
        return Map.of("sextant.tpm.address", swtpm.tpmArg(), "sextant.tpm.event-log", "/nonexistent");
    }

    @BeforeAll
    void verifierThatTrustsTheNode() {
        // What the join service and the operator's CLI would accept: this node's AK, any PCRs.
        trustsTheNode = new DocumentVerifier(new VerifierPolicy(new Measurements(Variant.QEMU_VTPM, new TreeMap<>()),
                AkTrust.ekCa(List.of(swtpm.ca().certificate()))));
    }

    @AfterAll
    void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("relay as client: a TPM-less attacker presents the node's VerifyService quote as its aTLS client evidence to a"
            + " join service: refused in the handshake as made for another purpose, nothing is served")
    void relayAsClient() throws Exception {
        RecordingVerifier joinServiceSide = new RecordingVerifier(trustsTheNode);
        try (TargetServer joinService = new TargetServer(AtlsContexts.server(OwnAttestation.none(), ClientVerification.by(joinServiceSide)))) {
            try (NodeChannel toNode = nodeChannel(AtlsContexts.client(OwnAttestation.none(), ServerVerification.insecureAcceptAnyServer()))) {
                SslContext attacker = AtlsContexts.client(OwnAttestation.by(new RelayThroughVerifyService(toNode.channel())), ServerVerification.insecureAcceptAnyServer());
                var refused = assertThrows(StatusRuntimeException.class, () -> joinService.call(attacker));
                assertEquals(Status.Code.UNAVAILABLE, refused.getStatus().getCode(), refused::toString);
            }
            assertEquals(Reason.WRONG_PURPOSE, joinServiceSide.rejection().reason(), joinServiceSide.rejection()::toString);
            assertEquals(0, joinService.served.get(), "the join service served the relaying attacker");
        }
    }

    @Test
    @DisplayName("relay as server: a TPM-less attacker serves aTLS with the node's VerifyService quote to an operator's"
            + " init/verify client: refused in the handshake as made for another purpose, nothing is sent")
    void relayAsServer() throws Exception {
        try (NodeChannel toNode = nodeChannel(AtlsContexts.client(OwnAttestation.none(), ServerVerification.insecureAcceptAnyServer()));
             TargetServer impostor = new TargetServer(AtlsContexts.server(OwnAttestation.by(new RelayThroughVerifyService(toNode.channel())), ClientVerification.anonymous()))) {
            RecordingVerifier operatorSide = new RecordingVerifier(trustsTheNode);
            var refused = assertThrows(StatusRuntimeException.class, () -> impostor.call(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(operatorSide))));
            assertEquals(Status.Code.UNAVAILABLE, refused.getStatus().getCode(), refused::toString);
            assertEquals(Reason.WRONG_PURPOSE, operatorSide.rejection().reason(), operatorSide.rejection()::toString);
            assertEquals(0, impostor.served.get(), "the operator's request reached the impostor");
        }
    }

    @Test
    @DisplayName("handshake flood: 60 concurrent bogus handshakes from one address while the operator verifies the node"
            + " and the node joins: the flood is capped per source and both legitimate handshakes succeed")
    void floodWhileVerifiedAndJoining() throws Exception {
        RecordingVerifier joinServiceSide = new RecordingVerifier(trustsTheNode);
        ExecutorService flood = Executors.newFixedThreadPool(60);
        try (TargetServer joinService = new TargetServer(AtlsContexts.server(OwnAttestation.none(), ClientVerification.by(joinServiceSide)))) {
            List<Future<Handshake>> bogus = new ArrayList<>();
            SSLContext anyServer = anyServerTls();
            for (int i = 0; i < 60; i++) {
                bogus.add(flood.submit(() -> bogusHandshake(anyServer)));
            }
            RecordingVerifier operatorSide = new RecordingVerifier(trustsTheNode);
            try (NodeChannel verified = nodeChannel(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(operatorSide)))) {
                GetAttestationResponse answer = VerifyServiceGrpc.newBlockingStub(verified.channel())
                        .withDeadlineAfter(30, TimeUnit.SECONDS).getAttestation(request(nonce()));
                assertTrue(answer.hasAttestation());
            }
            assertNotNull(operatorSide.accepted.get(), "the operator verified the node during the flood");
            joinService.call(AtlsContexts.client(OwnAttestation.by(nodeAttester), ServerVerification.insecureAcceptAnyServer()));
            assertEquals(1, joinService.served.get(), "the node joined during the flood");
            Map<Handshake, Integer> outcomes = new EnumMap<>(Handshake.class);
            for (Future<Handshake> f : bogus) {
                // Any other failure of a bogus handshake (no 127.0.0.2, a timeout) fails the row here.
                outcomes.merge(f.get(60, TimeUnit.SECONDS), 1, Integer::sum);
            }
            System.out.println("bogus handshakes: " + outcomes);
            assertTrue(outcomes.getOrDefault(Handshake.CLOSED_BY_NODE, 0) > 0,
                    "the node closed no bogus handshake: the per-source cap did not act (" + outcomes + ")");
        } finally {
            flood.shutdownNow();
        }
    }

    private NodeChannel nodeChannel(SslContext tls) {
        return new NodeChannel(NettyChannelBuilder.forAddress("127.0.0.1", node.getPort()).sslContext(tls).build());
    }

    private record NodeChannel(ManagedChannel channel) implements AutoCloseable {
        @Override
        public void close() { channel.shutdownNow(); }
    }

    /** How a bogus handshake ended: completed, or the connection closed by the node. */
    private enum Handshake { COMPLETED, CLOSED_BY_NODE }

    /**
     * One TLS handshake with the node from 127.0.0.2, then gone: the attacker costs the node a quote,
     * if admitted. The per-source cap closes a connection over the cap before TLS starts; every
     * failure other than the node closing the connection is thrown, so it is never counted as a refusal.
     */
    private Handshake bogusHandshake(SSLContext tls) throws IOException {
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
            socket.connect(new InetSocketAddress("127.0.0.1", node.getPort()), 5_000);
            socket.setSoTimeout(30_000);
            SSLParameters params = socket.getSSLParameters();
            params.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(params);
            try {
                socket.startHandshake();
                return Handshake.COMPLETED;
            } catch (IOException e) {
                if (closedByNode(e)) {
                    return Handshake.CLOSED_BY_NODE;
                }
                throw e;
            }
        }
    }

    /** The node ended the connection: an end of stream inside the handshake, or a reset (it closed with the ClientHello unread). */
    private static boolean closedByNode(IOException e) {
        return e instanceof SSLHandshakeException && e.getCause() instanceof EOFException
                || e instanceof SocketException && String.valueOf(e.getMessage()).contains("Connection reset");
    }

    private static SSLContext anyServerTls() throws Exception {
        SSLContext tls = SSLContext.getInstance("TLSv1.3");
        tls.init(null, new TrustManager[] {new X509TrustManager() {
            @Override public void checkClientTrusted(X509Certificate[] chain, String authType) {}
            @Override public void checkServerTrusted(X509Certificate[] chain, String authType) {}
            @Override public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
        }}, null);
        return tls;
    }

    private static GetAttestationRequest request(byte[] nonce) {
        return GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(nonce)).build();
    }

    private static byte[] nonce() {
        byte[] nonce = new byte[32];
        new SecureRandom().nextBytes(nonce);
        return nonce;
    }

    /**
     * The attacker's "attester": asks the node's VerifyService to quote the peer's TLS random (all
     * the service still lets a caller choose) and hands the node's document over as its own.
     */
    private static final class RelayThroughVerifyService implements Attester {
        private final ManagedChannel toNode;

        RelayThroughVerifyService(ManagedChannel toNode) { this.toNode = toNode; }

        @Override
        public dev.sextant.proto.v1.AttestationDocument attest(dev.sextant.attestation.Purpose purpose, byte[] nonce,
                                                               byte[] userData) throws AttestationException {
            try {
                return VerifyServiceGrpc.newBlockingStub(toNode).withDeadlineAfter(20, TimeUnit.SECONDS)
                        .getAttestation(request(nonce)).getAttestation();
            } catch (StatusRuntimeException e) {
                throw new AttestationException("the node did not quote: " + e.getStatus(), e);
            }
        }
    }

    /** A verifier that remembers what it decided, so a row can name the refusal. */
    private static final class RecordingVerifier implements AttestationVerifier {
        private final AttestationVerifier delegate;
        final AtomicReference<AttestationRejected> rejected = new AtomicReference<>();
        final AtomicReference<Object> accepted = new AtomicReference<>();

        RecordingVerifier(AttestationVerifier delegate) { this.delegate = delegate; }

        @Override
        public dev.sextant.attestation.verify.AttestedState verify(byte[] document, dev.sextant.attestation.Purpose purpose,
                                                                    byte[] nonce, byte[] userData) throws AttestationRejected {
            try {
                var state = delegate.verify(document, purpose, nonce, userData);
                accepted.set(state);
                return state;
            } catch (AttestationRejected e) {
                rejected.set(e);
                throw e;
            }
        }

        AttestationRejected rejection() {
            return java.util.Objects.requireNonNull(rejected.get(), "the verifier refused nothing");
        }
    }

    /** A stand-in for the join service (or an impostor): an aTLS server whose one method counts what it serves. */
    private static final class TargetServer extends VerifyServiceGrpc.VerifyServiceImplBase implements AutoCloseable {
        final AtomicInteger served = new AtomicInteger();
        private final Server server;

        TargetServer(SslContext tls) throws java.io.IOException {
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).sslContext(tls)
                    .addService(this).build().start();
        }

        @Override
        public void getAttestation(GetAttestationRequest request, StreamObserver<GetAttestationResponse> response) {
            served.incrementAndGet();
            response.onNext(GetAttestationResponse.getDefaultInstance());
            response.onCompleted();
        }

        void call(SslContext clientTls) throws InterruptedException {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).sslContext(clientTls).build();
            try {
                VerifyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).getAttestation(request(nonce()));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }

        @Override
        public void close() throws InterruptedException {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
