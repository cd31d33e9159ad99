package dev.sextant.housekeeping.componentconfig;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ComponentConfigTest {
    @TempDir
    Path dir;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger applierLog = (Logger) LoggerFactory.getLogger(ConfigApplier.class);

    @BeforeEach
    void captureLog() {
        log.start();
        applierLog.addAppender(log);
    }

    @AfterEach
    void releaseLog() {
        applierLog.detachAppender(log);
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = ComponentConfigTest.class.getResourceAsStream("/componentconfig/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static KubeletConfig kubelet(int maxPods) {
        return new KubeletConfig("cluster.local", maxPods, "VersionTLS13", true, false, "30s",
                Map.of("memory.available", "100Mi", "nodefs.available", "10%"));
    }

    @Test
    @DisplayName("the kubelet configuration renders byte for byte as its golden file")
    void kubeletGolden() throws IOException {
        assertEquals(golden("kubelet.yaml"), kubelet(110).render());
    }

    @Test
    @DisplayName("settings a kubelet would reject are refused with the reason")
    void badSettings() {
        var e = assertThrows(IllegalArgumentException.class, () -> new KubeletConfig("cluster.local", 110, "VersionTLS10",
                true, false, "", Map.of()));
        assertTrue(e.getMessage().contains("VersionTLS10"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> kubelet(0));
    }

    @Test
    @DisplayName("re-applying the same configuration writes nothing: same file, same modification time, no log line")
    void reapplyChangesNothing() throws Exception {
        ConfigApplier applier = new ConfigApplier();
        Path file = dir.resolve("etc/kubelet.yaml");
        ConfigFile config = ConfigFile.of(file, kubelet(110).render(), false);
        assertEquals(ConfigApplier.Outcome.CREATED, applier.apply(config));
        Object inode = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        var modified = Files.getLastModifiedTime(file);
        log.list.clear();
        Thread.sleep(20);

        assertEquals(List.of(ConfigApplier.Outcome.UNCHANGED, ConfigApplier.Outcome.UNCHANGED),
                applier.applyAll(List.of(config, config)));
        assertEquals(inode, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
        assertEquals(modified, Files.getLastModifiedTime(file));
        assertEquals(List.of(), log.list);
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (var left = Files.list(file.getParent())) {
            assertEquals(List.of(file), left.toList(), "no temporary file is left behind");
        }
    }

    @Test
    @DisplayName("a change is logged as a unified diff of the lines that changed, with secret values redacted")
    void changeLogsRedactedDiff() throws Exception {
        ConfigApplier applier = new ConfigApplier();
        Path file = dir.resolve("manifests/registry-auth.yaml");
        String oldToken = "K10aaaa::abcdef.0123456789abcdef";
        String newToken = "K10bbbb::fedcba.fedcba9876543210";
        applier.apply(new ConfigFile(file, manifest(oldToken, 2), Set.of(oldToken), true));
        log.list.clear();

        assertEquals(ConfigApplier.Outcome.UPDATED,
                applier.apply(new ConfigFile(file, manifest(newToken, 3), Set.of(newToken, oldToken), true)));
        String logged = log.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.joining("\n"));
        assertTrue(logged.contains("-  replicas: 2\n+  replicas: 3"), logged);
        assertTrue(logged.contains("--- " + file) && logged.contains("+++ " + file), logged);
        assertFalse(logged.contains(oldToken) || logged.contains(newToken), "a token reached the log:\n" + logged);
        assertEquals(manifest(newToken, 3), Files.readString(file));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    private static String manifest(String token, int replicas) {
        return SimpleYaml.render(new java.util.LinkedHashMap<>(Map.of("spec", Map.of("replicas", replicas), "token", token)));
    }
}
