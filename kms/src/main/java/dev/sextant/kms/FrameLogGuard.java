package dev.sextant.kms;

import io.micronaut.context.annotation.Context;
import io.micronaut.logging.LogLevel;
import io.micronaut.logging.LoggingSystem;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps grpc-netty's HTTP/2 frame loggers above DEBUG. At DEBUG they dump every DATA frame in hex,
 * which for this service is the data keys themselves (seen in LogLeakTest before this guard existed).
 * A blanket "root at DEBUG" while chasing a problem must not turn into a key leak, so the pin is done
 * in code at start, before the gRPC server exists, and announced with a WARN when it overrides a level.
 */
@Context
class FrameLogGuard {

    private static final Logger LOG = LoggerFactory.getLogger(FrameLogGuard.class);
    private static final List<String> FRAME_LOGGERS = List.of(
            "io.grpc.netty.NettyServerHandler", "io.grpc.netty.NettyClientHandler");

    FrameLogGuard(LoggingSystem loggingSystem) {
        for (String name : FRAME_LOGGERS) {
            boolean wasVerbose = LoggerFactory.getLogger(name).isDebugEnabled();
            loggingSystem.setLogLevel(name, LogLevel.INFO);
            if (wasVerbose) {
                LOG.warn("{} set to INFO: at DEBUG it would log gRPC payloads, i.e. data keys", name);
            }
        }
    }
}
