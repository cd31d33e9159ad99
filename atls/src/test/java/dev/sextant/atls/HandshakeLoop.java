package dev.sextant.atls;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Full TLS handshakes on 127.0.0.1 as fast as {@code threads} clients can do them: connect,
 * handshake, wait for a 1-byte ack the server writes after ITS handshake (so the client's
 * certificate was checked too), close. Raw Netty rather than gRPC channels, so that channel
 * set-up cost does not hide the handshake; cert callbacks run on an executor, as under gRPC.
 */
final class HandshakeLoop implements AutoCloseable {
    /**
     * {@code cpuMillis} is the whole process's CPU; {@code jitMillis} the part the JIT compiler
     * threads used (from /proc; 0 where there is none), which is warm-up, not handshake cost.
     */
    record Result(long handshakes, long failures, double seconds, double cpuMillis, double jitMillis) {
        double perSecond() { return handshakes / seconds; }

        double cpuMillisPerHandshake() { return handshakes == 0 ? Double.NaN : cpuMillis / handshakes; }

        double jitMillisPerHandshake() { return handshakes == 0 ? Double.NaN : jitMillis / handshakes; }

        /** Share of the process's CPU the JIT compilers took: high means "not warmed up yet". */
        double jitShare() { return cpuMillis == 0 ? 0 : jitMillis / cpuMillis; }
    }

    private final EventLoopGroup serverLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final EventLoopGroup clientLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final ExecutorService tasks = Executors.newCachedThreadPool();
    private final SslContext clientContext;
    private final Channel server;
    private final int port;

    HandshakeLoop(SslContext serverContext, SslContext clientContext) throws InterruptedException {
        this.clientContext = clientContext;
        server = new ServerBootstrap().group(serverLoops).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(serverContext.newHandler(ch.alloc(), tasks), new AckAfterHandshake());
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        port = ((java.net.InetSocketAddress) server.localAddress()).getPort();
    }

    Result run(double seconds, int threads) throws InterruptedException {
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long cpuBefore = processCpuNanos();
        long jitBefore = JitCpu.nanos();
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        Thread[] workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    (handshakeOnce() ? ok : failed).incrementAndGet();
                }
            });
            workers[i].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return new Result(ok.get(), failed.get(), elapsed, (processCpuNanos() - cpuBefore) / 1e6,
                (JitCpu.nanos() - jitBefore) / 1e6);
    }

    private boolean handshakeOnce() {
        CompletableFuture<Boolean> acked = new CompletableFuture<>();
        try {
            Channel ch = new Bootstrap().group(clientLoops).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            c.pipeline().addLast(clientContext.newHandler(c.alloc(), "127.0.0.1", port, tasks),
                                    new AwaitAck(acked));
                        }
                    }).connect("127.0.0.1", port).sync().channel();
            try {
                return acked.get(30, TimeUnit.SECONDS);
            } finally {
                ch.close().sync();
            }
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * This JVM's CPU plus that of its running child processes (the swtpm instances of the swtpm
     * variants), so a quote costs the same whether the TPM runs in-process or beside it.
     */
    private static long processCpuNanos() {
        long children = ProcessHandle.current().children()
                .mapToLong(p -> p.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L)).sum();
        return children + ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    @Override
    public void close() throws InterruptedException {
        server.close().sync();
        serverLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        clientLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        tasks.shutdownNow();
    }

    private static final class AckAfterHandshake extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent) {
                if (((SslHandshakeCompletionEvent) evt).isSuccess()) {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
                } else {
                    if (Boolean.getBoolean("bench.debug")) {
                        ((SslHandshakeCompletionEvent) evt).cause().printStackTrace();
                    }
                    ctx.close();
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private static final class AwaitAck extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Boolean> acked;

        AwaitAck(CompletableFuture<Boolean> acked) { this.acked = acked; }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            io.netty.util.ReferenceCountUtil.release(msg);
            acked.complete(true);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) { acked.complete(false); }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (Boolean.getBoolean("bench.debug")) {
                cause.printStackTrace();
            }
            acked.complete(false);
            ctx.close();
        }
    }
}
