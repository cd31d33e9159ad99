package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.handler.ssl.SslContext;

import javax.net.ssl.SSLSession;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A real gRPC server on a free 127.0.0.1 port with the given aTLS context, and channels to it. */
final class GrpcPair implements AutoCloseable {
    /** What one call saw: the client AK name the service was given, and the server state the client verified. */
    record Reply(byte[] clientAkSeenByService, Optional<AttestedState> serverStateSeenByClient) {}

    final EchoKeyService service = new EchoKeyService();
    private final Server server;

    GrpcPair(SslContext serverContext, boolean attestationRequired) throws IOException {
        this(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).sslContext(serverContext),
                attestationRequired);
    }

    /** A server as nodes and the join service run theirs: handshake work on the bounded pool of {@code limits}. */
    GrpcPair(SslContext serverContext, boolean attestationRequired, HandshakeLimits limits) throws IOException {
        this(AtlsServers.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)), serverContext,
                limits), attestationRequired);
    }

    private GrpcPair(NettyServerBuilder builder, boolean attestationRequired) throws IOException {
        server = builder.addService(ServerInterceptors.intercept(service, new AtlsServerInterceptor(attestationRequired)))
                .build()
                .start();
    }

    /** The AK name the service saw, from one call on a NEW channel (a new connection, a full handshake). */
    byte[] callOnNewChannel(SslContext clientContext) throws InterruptedException {
        return call(clientContext).clientAkSeenByService();
    }

    Reply call(SslContext clientContext) throws InterruptedException {
        AtomicReference<SSLSession> session = new AtomicReference<>();
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(clientContext).intercept(new SessionCapture(session)).build();
        try {
            byte[] ak = KeyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId("probe").setLength(32).build())
                    .getDataKey().toByteArray();
            return new Reply(ak, PeerAttestation.of(session.get()));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Grabs the call's TLS session once response headers arrive, as a client application would. */
    private static final class SessionCapture implements ClientInterceptor {
        private final AtomicReference<SSLSession> session;

        SessionCapture(AtomicReference<SSLSession> session) { this.session = session; }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                @Override
                public void start(Listener<R> listener, Metadata headers) {
                    ClientCall<Q, R> call = this;
                    super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                        @Override
                        public void onHeaders(Metadata responseHeaders) {
                            session.set(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
                            super.onHeaders(responseHeaders);
                        }
                    }, headers);
                }
            };
        }
    }
}
