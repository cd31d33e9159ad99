package dev.sextant.localcluster.verify;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("A probe of a node's aTLS port, once the node's quote has verified")
class AtlsProbeTest {
    private static final SoftwareTpmAttester NODE = new SoftwareTpmAttester();
    private static final byte[] NONCE = new byte[32];

    private final AtlsProbe probe = new AtlsProbe(new DocumentVerifier(
            new VerifierPolicy(NODE.measurements(), AkTrust.ekCa(NODE.anchors()))));
    private Server server;

    @AfterEach
    void stop() {
        server.shutdownNow();
    }

    @Test
    @DisplayName("tries again when the node goes away before answering (a bootstrapper exiting to come back verify-only)")
    void nodeGoingAway() throws Exception {
        AtomicReference<Server> self = new AtomicReference<>();
        int port = serve((request, response) -> self.get().shutdownNow());
        self.set(server);

        assertTrue(probe.once(port, NONCE).isEmpty());
    }

    @Test
    @DisplayName("fails when the node answers the call with an error: a node-side bug, not a node still starting")
    void nodeAnsweringWithAnError() throws Exception {
        int port = serve((request, response) -> response.onError(Status.INTERNAL.withDescription("bug").asRuntimeException()));

        IOException e = assertThrows(IOException.class, () -> probe.once(port, NONCE));
        assertTrue(e.getMessage().contains("quote verified but GetAttestation failed"), e.getMessage());
    }

    /** A node's VerifyService over aTLS on a free loopback port, answering with {@code handler}. */
    private int serve(BiConsumer<GetAttestationRequest, StreamObserver<GetAttestationResponse>> handler) throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .sslContext(AtlsContexts.server(OwnAttestation.by(NODE), ClientVerification.anonymous()))
                .addService(new VerifyServiceGrpc.VerifyServiceImplBase() {
                    @Override
                    public void getAttestation(GetAttestationRequest request, StreamObserver<GetAttestationResponse> response) {
                        handler.accept(request, response);
                    }
                })
                .build().start();
        return server.getPort();
    }
}
