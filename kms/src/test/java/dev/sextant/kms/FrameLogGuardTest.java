package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.grpcsupport.FrameLogGuard;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

@DisplayName("FrameLogGuard")
class FrameLogGuardTest {

    @Test
    @DisplayName("a gRPC frame logger set to DEBUG is pinned to INFO at start, with a WARN saying why")
    void pinsFrameLoggerToInfo() {
        Logger frames = (Logger) LoggerFactory.getLogger("io.grpc.netty.NettyServerHandler");
        Logger guardLog = (Logger) LoggerFactory.getLogger(FrameLogGuard.class);
        Level before = frames.getLevel();
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        guardLog.addAppender(captured);
        frames.setLevel(Level.DEBUG);
        try (TestSecrets files = TestSecrets.golden();
                ApplicationContext ctx = ApplicationContext.run(files.contextProperties(), "test")) {
            assertEquals(Level.INFO, frames.getLevel());
            assertTrue(captured.list.stream().anyMatch(e -> e.getLevel() == Level.WARN
                    && e.getFormattedMessage().contains("io.grpc.netty.NettyServerHandler set to INFO")),
                    () -> captured.list.toString());
        } finally {
            guardLog.detachAppender(captured);
            frames.setLevel(before);
        }
    }
}
