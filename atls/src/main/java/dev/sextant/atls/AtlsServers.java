package dev.sextant.atls;

import io.grpc.netty.AtlsServerTlsAccess;
import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;

import java.util.concurrent.ExecutorService;

/**
 * Puts an aTLS server context on a gRPC server with flood limits ({@link HandshakeLimits}): the
 * handshake work (mint, quote, verify) runs on a bounded pool off the event loop and fails fast
 * when the pool is full, and one source address holds only so many unfinished handshakes. Use
 * instead of {@code NettyServerBuilder.sslContext}.
 */
public final class AtlsServers {
    private AtlsServers() {}

    public static NettyServerBuilder secure(NettyServerBuilder builder, SslContext atls, HandshakeLimits limits) {
        ExecutorService workers = HandshakeWorkers.create(limits);
        InternalProtocolNegotiator.ProtocolNegotiator tls = AtlsServerTlsAccess.serverTls(atls, workers);
        PerSourceLimit handshakes = new PerSourceLimit(limits.perSource());
        return builder.protocolNegotiator(new InternalProtocolNegotiator.ProtocolNegotiator() {
            @Override
            public AsciiString scheme() { return tls.scheme(); }

            @Override
            public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
                return new SourceCapHandler(tls.newHandler(grpcHandler), handshakes);
            }

            @Override
            public void close() {
                tls.close();
                workers.shutdown();
            }
        });
    }
}
