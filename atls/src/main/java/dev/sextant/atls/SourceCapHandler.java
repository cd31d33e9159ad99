package dev.sextant.atls;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * First handler of a new server connection: closes it when its source already holds the maximum
 * of unfinished handshakes; otherwise puts grpc's TLS handler after it and counts the handshake
 * until it ends (success, failure or close), then steps out of the pipeline.
 */
final class SourceCapHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(SourceCapHandler.class);

    private final ChannelHandler tls;
    private final PerSourceLimit handshakes;
    private final AtomicBoolean counted = new AtomicBoolean();
    private InetAddress source;

    SourceCapHandler(ChannelHandler tls, PerSourceLimit handshakes) {
        this.tls = tls;
        this.handshakes = handshakes;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress remote) {
            if (!handshakes.tryEnter(remote.getAddress())) {
                // DEBUG, not WARN: a flood must not turn into a flood of log lines.
                LOG.debug("aTLS: closing a connection from {}: it has the maximum of handshakes in progress",
                        remote.getAddress());
                ctx.close();
                return;
            }
            source = remote.getAddress();
            counted.set(true);
            ctx.channel().closeFuture().addListener(closed -> leave());
        }
        ctx.pipeline().addAfter(ctx.name(), null, tls);
    }

    /** grpc adds its SslHandler once the channel is active, so the handshake is watched from here. */
    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        super.channelActive(ctx);
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl != null) {
            ssl.handshakeFuture().addListener(done -> leave());
        }
        ctx.pipeline().remove(this);
    }

    private void leave() {
        if (counted.compareAndSet(true, false)) {
            handshakes.leave(source);
        }
    }
}
