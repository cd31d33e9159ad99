package dev.sextant.grpcsupport;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.core.order.Ordered;
import io.micronaut.logging.LogLevel;
import io.micronaut.logging.LoggingSystem;
import io.micronaut.runtime.context.scope.refresh.RefreshEvent;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the HTTP/2 frame loggers of grpc-netty above DEBUG in every Sextant gRPC service. At DEBUG
 * they dump DATA frames in hex: disk keys, measurement secrets, master secrets (the KMS and join
 * service LogLeakTests caught it). Pinned at construction, and again after start-up and
 * every refresh, last in order: Micronaut's logging system reconfigures logback then, which drops
 * levels set earlier (a pin made only at construction was undone before the first request).
 */
@Context
public class FrameLogGuard implements ApplicationEventListener<Object>, Ordered {

    private static final Logger LOG = LoggerFactory.getLogger(FrameLogGuard.class);
    private static final List<String> FRAME_LOGGERS = List.of(
            "io.grpc.netty.NettyServerHandler", "io.grpc.netty.NettyClientHandler");

    private final LoggingSystem loggingSystem;

    public FrameLogGuard(LoggingSystem loggingSystem) {
        this.loggingSystem = loggingSystem;
        pin();
    }

    @Override
    public boolean supports(Object event) {
        return event instanceof StartupEvent || event instanceof RefreshEvent;
    }

    @Override
    public void onApplicationEvent(Object event) {
        pin();
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    private void pin() {
        for (String name : FRAME_LOGGERS) {
            boolean wasVerbose = LoggerFactory.getLogger(name).isDebugEnabled();
            loggingSystem.setLogLevel(name, LogLevel.INFO);
            if (wasVerbose) {
                LOG.warn("{} set to INFO: at DEBUG it would log gRPC payloads, i.e. secrets", name);
            }
        }
    }
}
