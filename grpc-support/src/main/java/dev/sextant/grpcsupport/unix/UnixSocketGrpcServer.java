package dev.sextant.grpcsupport.unix;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A gRPC server on a Unix domain socket and nowhere else, for a service that has exactly one caller beside it
 * on the same machine: the socket lives in a directory only the service's uid can write ({@link SocketDirectory}),
 * and every connection is checked against the callers' uids as the kernel reports them ({@link PeerUidGate})
 * before gRPC reads from it. No TCP port exists, so nothing that reaches the machine's or the pod's network
 * (another pod, {@code kubectl port-forward}) reaches the service.
 */
public final class UnixSocketGrpcServer implements AutoCloseable {
    private final Path socket;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Server server;

    /**
     * Prepares the directory, binds the socket, restricts it to owner and group, and starts serving.
     *
     * @param name      what serves there, for log lines ("the KMS")
     * @param ownUid    the uid this process runs as, which must own the socket's directory
     * @param callers   the uids allowed to connect
     * @param refused   told the uid of each refused connection
     * @param configure adds the services, interceptors and limits to the builder
     * @throws IOException when the directory is unfit or the socket cannot be bound, naming the path
     */
    public UnixSocketGrpcServer(String name, Path socket, int ownUid, Set<Integer> callers, IntConsumer refused,
                                Consumer<NettyServerBuilder> configure) throws IOException {
        this.socket = socket.toAbsolutePath();
        SocketDirectory.prepare(this.socket, ownUid);
        PeerUidGate gate = new PeerUidGate(name + " socket " + this.socket, callers, refused);
        this.boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("unix-grpc-accept", true), EpollIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("unix-grpc", true), EpollIoHandler.newFactory());
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(this.socket.toString()))
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                // The gate goes into the listening channel's own pipeline, ahead of the acceptor netty adds at bind.
                .channelFactory(() -> {
                    EpollServerDomainSocketChannel listening = new EpollServerDomainSocketChannel();
                    listening.pipeline().addLast("peer-uid-gate", gate);
                    return listening;
                });
        configure.accept(builder);
        Server built = builder.build();
        try {
            this.server = built.start();
            SocketDirectory.restrict(this.socket);
        } catch (IOException | RuntimeException e) {
            built.shutdownNow();
            shutdownGroups();
            throw new IOException("cannot serve " + name + " on " + this.socket + ": " + e.getMessage(), e);
        }
    }

    public Path socket() {
        return socket;
    }

    public boolean isServing() {
        return !server.isShutdown();
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        shutdownGroups();
    }

    private void shutdownGroups() {
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
