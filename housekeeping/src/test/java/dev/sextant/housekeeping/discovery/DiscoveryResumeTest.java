package dev.sextant.housekeeping.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Discovery across the bootstrapper's exit")
class DiscoveryResumeTest {
    @TempDir
    Path dir;

    private GossipSettings settings(boolean enabled, int port) {
        return new GossipSettings(enabled, "demo", "127.0.0.1", port, List.of("127.0.0.1:" + port), "",
                Duration.ofSeconds(4), Duration.ofSeconds(30), 6443, 0, 2379);
    }

    @Test
    @DisplayName("the next bootstrapper process of this boot rejoins the group with the key the first one remembered (0600)")
    void rejoinsAfterRestart() throws Exception {
        int port = FreePorts.loopback();
        Path file = dir.resolve("run/discovery.key");
        try (var first = new EndpointDiscovery(settings(true, port))) {
            new DiscoveryResume(first, file).start(new byte[32], "cp-1", true,
                    TestMembers.random().controlPlane("cp-1"));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
        try (var restarted = new EndpointDiscovery(settings(true, port))) {
            new DiscoveryResume(restarted, file).onStartup(null);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && restarted.records().isEmpty()) {
                Thread.sleep(50);
            }
            assertTrue(restarted.records().contains(new EndpointRecord("api.internal.demo", "127.0.0.1", 6443)),
                    restarted.records().toString());
        }
    }

    @Test
    @DisplayName("with discovery switched off nothing is remembered")
    void disabledRemembersNothing() throws Exception {
        Path file = dir.resolve("discovery.key");
        new DiscoveryResume(new EndpointDiscovery(settings(false, FreePorts.loopback())), file).start(new byte[32], "cp-1", true,
                TestMembers.random().controlPlane("cp-1"));
        assertFalse(Files.exists(file));
    }
}
