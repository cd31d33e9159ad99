package dev.sextant.joinapi;

import ch.qos.logback.classic.spi.Configurator;
import dev.sextant.grpcsupport.logging.ServiceLogging;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ServiceLoggingRegisteredTest {

    @Test
    @DisplayName("the service's logging is set up in code (ServiceLogging), the one configurator logback and Micronaut find")
    void registered() {
        List<Class<?>> found = ServiceLoader.load(Configurator.class).stream()
                .<Class<?>>map(ServiceLoader.Provider::type).toList();

        assertEquals(List.of(ServiceLogging.class), found);
    }
}
