package dev.sextant.nodeboot.unlock;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.AtlsServers;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.HandshakeLimits;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.grpcsupport.ConnectionLimits;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyServerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The recovery endpoint's own gRPC server, up only while the state disk waits for its key:
 * server-attested aTLS (the operator verifies the node before it sends a key; the node verifies
 * no client), small messages only. Anyone may connect and every handshake costs a TPM quote, so
 * the handshakes run under the same {@link HandshakeLimits} as the node's main port, connections
 * under the same {@link ConnectionLimits}, and one source address holds at most
 * {@value #CALLS_PER_SOURCE} calls at once ({@link CallsPerSource}).
 */
public final class RecoveryServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryServer.class);
    private static final int MAX_MESSAGE_BYTES = 4096;
    /** The operator's CLI asks one thing at a time; a few more leave room for a second terminal. */
    public static final int CALLS_PER_SOURCE = 4;

    private final Server server;

    private RecoveryServer(Server server) {
        this.server = server;
    }

    public static RecoveryServer start(int port, Attester attester, RecoveryEndpoint endpoint) throws IOException {
        NettyServerBuilder builder = AtlsServers.secure(NettyServerBuilder.forAddress(new InetSocketAddress(port)),
                AtlsContexts.server(OwnAttestation.by(attester), ClientVerification.anonymous()), HandshakeLimits.defaults());
        Server server = ConnectionLimits.defaults().applyTo(builder)
                .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .addService(ServerInterceptors.intercept(endpoint, new CallsPerSource(CALLS_PER_SOURCE)))
                .build()
                .start();
        LOG.info("Recovery: serving on port {} while the state disk waits for its key", server.getPort());
        return new RecoveryServer(server);
    }

    public int port() {
        return server.getPort();
    }

    /** Lets a call in flight (the winning Recover) finish its answer, then stops. */
    @Override
    public void close() throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
            server.shutdownNow();
        }
        LOG.info("Recovery: stopped");
    }
}
