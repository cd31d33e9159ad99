package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.ApplicationContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The join service binds its settings through JoinServiceConfig")
class ConfigurationBindingTest {
    @TempDir
    Path dir;

    private Map<String, Object> noKubernetes(String key, String value) {
        return Map.of(JoinServiceConfig.KUBERNETES_ENABLED, "false", JoinServiceConfig.ATLS_ENABLED, "false",
                JoinServiceConfig.CONTROL_PLANE_DIR, dir.toString(), key, value);
    }

    @Test
    @DisplayName("a setting from any Micronaut source lands in the record; unset ones take the record's defaults")
    void bindsFromTheEnvironment() {
        try (ApplicationContext ctx = ApplicationContext.run(noKubernetes(JoinServiceConfig.TOKEN_TTL, "7m"), "test")) {
            JoinServiceConfig config = ctx.getBean(JoinServiceConfig.class);
            assertEquals(Duration.ofMinutes(7), config.tokenTtl());
            assertEquals(dir, config.controlPlaneDir());
            assertEquals(java.nio.file.Path.of("/run/sextant/kms/kms.sock"), config.kms().socket());
            assertEquals(JoinServiceConfig.defaults().measurements(), config.measurements());
        }
    }

    @Test
    @DisplayName("a malformed setting stops the service at start, naming the property")
    void malformedSettingStopsTheService() throws Exception {
        Files.createDirectories(dir);
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> ApplicationContext.run(noKubernetes(JoinServiceConfig.TOKEN_TTL, "soon"), "test").close());
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t.getMessage()).append('\n');
        }
        assertTrue(text.toString().contains(JoinServiceConfig.TOKEN_TTL + " must be a duration"), text.toString());
    }
}
