package dev.sextant.nodeboot;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("The bootstrapper's logging")
class NodeLoggingTest {

    @Test
    @DisplayName("goes to the console and to the file an operator gets back after a failed init")
    void consoleAndFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("node-boot.log");
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter()); // a context of its own, not slf4j's
        new NodeLogging(resource -> false, file.toString()).configure(context);

        context.getLogger("dev.sextant.nodeboot.init").info("init failed: no TPM");

        assertNotNull(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDOUT"));
        context.stop();
        assertTrue(Files.readString(file).contains("INFO  d.sextant.nodeboot.init - init failed: no TPM"), Files.readString(file));
    }

    @Test
    @DisplayName("is the one logback and Micronaut find: the bootstrapper's jar names it, and no other")
    void registered() {
        var found = ServiceLoader.load(Configurator.class).stream().map(ServiceLoader.Provider::type).toList();

        assertEquals(java.util.List.of(NodeLogging.class), found);
    }
}
