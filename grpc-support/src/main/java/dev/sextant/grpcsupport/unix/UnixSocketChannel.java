package dev.sextant.grpcsupport.unix;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A plaintext gRPC channel to a {@link UnixSocketGrpcServer}: the kernel carries the bytes between two
 * processes of one machine, and the server knows the caller by its uid, so there is nothing for TLS to add.
 * One event loop of its own, closed with the channel. The socket is named again on every reconnect, so a
 * server that restarted (a new socket at the same path) is found again.
 */
public final class UnixSocketChannel implements AutoCloseable {
    private final EventLoopGroup loop;
    private final ManagedChannel channel;

    public UnixSocketChannel(Path socket) {
        this.loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("unix-grpc-client", true), EpollIoHandler.newFactory());
        this.channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toAbsolutePath().toString()))
                .eventLoopGroup(loop)
                .channelType(EpollDomainSocketChannel.class)
                // The default authority would be the socket's path; the server reads no authority.
                .overrideAuthority("localhost")
                .usePlaintext()
                .build();
    }

    public ManagedChannel channel() {
        return channel;
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
