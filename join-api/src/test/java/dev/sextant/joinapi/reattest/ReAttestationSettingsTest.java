package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.ApplicationContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The re-attestation settings, sextant.join.reattest.*")
class ReAttestationSettingsTest {
    @TempDir
    Path dir;

    private ApplicationContext service(Map<String, Object> reattest) {
        Map<String, Object> p = new HashMap<>(Map.of(JoinServiceConfig.KUBERNETES_ENABLED, "false",
                JoinServiceConfig.ATLS_ENABLED, "false", JoinServiceConfig.CONTROL_PLANE_DIR, dir.toString(),
                "sextant.join.reattest.enabled", "false"));
        p.putAll(reattest);
        return ApplicationContext.run(p, "test");
    }

    @Test
    @DisplayName("unset, they are the contract's defaults: every 30 s, a lease of 15 s, 16 calls in flight, revoked after 4 missed rounds")
    void defaults() {
        try (ApplicationContext ctx = service(Map.of())) {
            ReAttestationSettings s = ctx.getBean(ReAttestationSettings.class);
            assertEquals(Duration.ofSeconds(30), s.period());
            assertEquals(Duration.ofSeconds(15), s.lease());
            assertEquals(16, s.parallel());
            assertEquals(20, s.missedPeriods());
            assertEquals(Optional.empty(), s.holder());
            assertEquals(Duration.ofSeconds(10), s.callDeadline());
        }
    }

    @Test
    @DisplayName("set, each lands in the record; a short period shortens the call deadline to half of it")
    void bound() {
        try (ApplicationContext ctx = service(Map.of("sextant.join.reattest.period", "5s", "sextant.join.reattest.lease", "6s",
                "sextant.join.reattest.parallel", "64", "sextant.join.reattest.missed-periods", "2",
                "sextant.join.reattest.holder-name", "cp-1"))) {
            ReAttestationSettings s = ctx.getBean(ReAttestationSettings.class);
            assertEquals(Duration.ofSeconds(5), s.period());
            assertEquals(Duration.ofSeconds(6), s.lease());
            assertEquals(64, s.parallel());
            assertEquals(2, s.missedPeriods());
            assertEquals(Optional.of("cp-1"), s.holder());
            assertEquals(Duration.ofMillis(2500), s.callDeadline());
        }
    }

    @Test
    @DisplayName("a lease that is not whole seconds of at least 2, or no call in flight, is refused naming the property")
    void refused() {
        for (Map.Entry<String, String> bad : Map.of("sextant.join.reattest.lease", "1500ms",
                "sextant.join.reattest.parallel", "0", "sextant.join.reattest.missed-periods", "0").entrySet()) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> {
                try (ApplicationContext ctx = service(Map.of(bad.getKey(), bad.getValue()))) {
                    ctx.getBean(ReAttestationSettings.class);
                }
            });
            StringBuilder text = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                text.append(t.getMessage()).append('\n');
            }
            assertTrue(text.toString().contains(bad.getKey()), text.toString());
        }
    }
}
