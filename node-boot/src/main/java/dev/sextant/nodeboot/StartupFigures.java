package dev.sextant.nodeboot;

import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** Logs the figure the node image is judged by: JVM start to a listening gRPC port, and resident memory then. */
@Singleton
final class StartupFigures {
    private static final Logger LOG = LoggerFactory.getLogger(StartupFigures.class);

    @EventListener
    void onServing(ServerStartupEvent event) {
        LOG.info("Serving gRPC on port {} {} ms after JVM start; resident memory {}", event.getSource().getPort(),
                ManagementFactory.getRuntimeMXBean().getUptime(), residentMemory());
    }

    private static String residentMemory() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                    .map(l -> l.substring(6).strip()).findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
