package dev.sextant.atls;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executor for SSLEngine delegated tasks: a fixed number of threads and a bounded queue that
 * rejects when full. Netty's SslHandler turns the rejection into a failed handshake, so an excess
 * handshake fails at once instead of waiting behind the flood. Idle threads end.
 */
final class HandshakeWorkers {
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeWorkers.class);

    private HandshakeWorkers() {}

    static ThreadPoolExecutor create(HandshakeLimits limits) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = task -> {
            Thread t = new Thread(task, "atls-handshake-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        ThreadPoolExecutor executor = new ThreadPoolExecutor(limits.workers(), limits.workers(), 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(limits.queued()), threads, (task, pool) -> {
                    // DEBUG, not WARN: a flood must not turn into a flood of log lines.
                    LOG.debug("aTLS: handshake work queue full ({} waiting), failing a handshake", pool.getQueue().size());
                    throw new RejectedExecutionException("aTLS handshake work queue is full");
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
