package io.grpc.netty;

import io.grpc.internal.FixedObjectPool;
import io.netty.handler.ssl.SslContext;

import java.util.concurrent.Executor;

/**
 * Reaches grpc-netty's package-private server TLS negotiator with an executor of our choosing for
 * the SSLEngine's delegated tasks. {@code NettyServerBuilder.sslContext} hands those tasks (for
 * aTLS: minting, the TPM quote and the peer's verification) to the server's application executor,
 * which is unbounded; the public {@code InternalProtocolNegotiators.serverTls} runs them on the
 * event loop. Neither sheds load. Lives in grpc's package only for this one call (classpath only).
 */
public final class AtlsServerTlsAccess {
    private AtlsServerTlsAccess() {}

    /** grpc's own server TLS handler (ALPN check, session attributes), running delegated tasks on {@code tasks}. */
    public static InternalProtocolNegotiator.ProtocolNegotiator serverTls(SslContext context, Executor tasks) {
        ProtocolNegotiator tls = ProtocolNegotiators.serverTls(context, new FixedObjectPool<>(tasks));
        return new InternalProtocolNegotiator.ProtocolNegotiator() {
            @Override
            public io.netty.util.AsciiString scheme() { return tls.scheme(); }

            @Override
            public io.netty.channel.ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
                return tls.newHandler(grpcHandler);
            }

            @Override
            public void close() { tls.close(); }
        };
    }
}
