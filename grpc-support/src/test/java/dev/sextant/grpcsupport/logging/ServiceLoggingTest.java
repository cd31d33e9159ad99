package dev.sextant.grpcsupport.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.core.ConsoleAppender;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

@DisplayName("A service's logging")
class ServiceLoggingTest {

    @Test
    @DisplayName("goes to the console at INFO in the services' pattern, and logback looks no further")
    void console() {
        LoggerContext context = new LoggerContext();

        ExecutionStatus status = new ServiceLogging(resource -> false).configure(context);

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertEquals(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY, status);
        assertEquals(Level.INFO, root.getLevel());
        ConsoleAppender<?> console = assertInstanceOf(ConsoleAppender.class, root.getAppender("STDOUT"));
        assertEquals(ServiceLogging.CONSOLE_PATTERN, ((PatternLayoutEncoder) console.getEncoder()).getPattern());
    }

    @Test
    @DisplayName("is a logback-test.xml's when one is on the class path (this module's tests have one)")
    void testConfigurationWins() {
        LoggerContext context = new LoggerContext();

        ExecutionStatus status = new ServiceLogging().configure(context);

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertNotEquals(ExecutionStatus.INVOKE_NEXT_IF_ANY, status);
        assertNotNull(root.getAppender("TEST-XML"));
        assertNull(root.getAppender("STDOUT"));
    }
}
