package dev.sextant.grpcsupport.unix;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.PeerCredentials;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sits in the listening socket's pipeline, before netty hands an accepted connection to gRPC, and lets
 * through only connections whose peer (SO_PEERCRED: the uid of the process that connected, as the kernel
 * recorded it) is one of the allowed uids. A refused connection is closed before gRPC sees a byte of it,
 * with a WARN naming the uid and pid; a peer whose credentials cannot be read is refused too.
 */
@ChannelHandler.Sharable
final class PeerUidGate extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(PeerUidGate.class);

    private final String server;
    private final Set<Integer> allowed;
    private final IntConsumer refused;

    /**
     * @param server  names the socket in log lines ("the KMS socket /run/sextant/kms/kms.sock")
     * @param allowed the uids that may connect
     * @param refused told the uid of every refused connection (-1: unknown), for a metric
     */
    PeerUidGate(String server, Set<Integer> allowed, IntConsumer refused) {
        this.server = server;
        this.allowed = Set.copyOf(allowed);
        this.refused = refused;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel connection = (Channel) msg;
        Optional<PeerCredentials> peer = credentials(connection);
        if (peer.isPresent() && allowed.contains(peer.get().uid())) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (peer.isPresent()) {
            LOG.warn("refused a connection to {} from uid {} (pid {}): only uid {} may connect", server, peer.get().uid(),
                    peer.get().pid(), allowed.size() == 1 ? allowed.iterator().next() : allowed);
        } else {
            LOG.warn("refused a connection to {}: the peer's credentials cannot be read", server);
        }
        refused.accept(peer.map(PeerCredentials::uid).orElse(-1));
        // Not registered with an event loop yet: close the descriptor directly, as netty's acceptor does on failure.
        connection.unsafe().closeForcibly();
    }

    private static Optional<PeerCredentials> credentials(Channel connection) {
        if (!(connection instanceof EpollDomainSocketChannel socket)) {
            return Optional.empty();
        }
        try {
            return Optional.of(socket.peerCredentials());
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
