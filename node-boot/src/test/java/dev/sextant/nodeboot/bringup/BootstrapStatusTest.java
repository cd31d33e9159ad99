package dev.sextant.nodeboot.bringup;


import dev.sextant.nodeboot.lifecycle.ProcessExit;
import dev.sextant.nodeboot.lifecycle.LifecycleSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sextant.diskcrypt.ProcessCommandRunner;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.image.OsRelease;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import dev.sextant.nodeboot.deploy.EtcdStanding;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The end of bootstrapping")
class BootstrapStatusTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final List<Duration> exits = new ArrayList<>();

    private BootstrapStatus status(boolean exitAfterBootstrap) {
        var diskSettings = new StateDiskSettings(dir.resolve("no-disk"), dir.resolve("luks"), dir.resolve("key"), 8192, 4);
        ProcessExit exit = new ProcessExit() {
            @Override
            public void exitAfter(Duration delay) {
                exits.add(delay);
            }
        };
        return new BootstrapStatus(new LifecycleSettings(exitAfterBootstrap, Duration.ofSeconds(2)),
                new StateDisk(diskSettings, new ProcessCommandRunner()), diskSettings, exit,
                new OsRelease(osRelease()), new PrintStream(console, true, StandardCharsets.UTF_8));
    }

    private Path osRelease() {
        try {
            return Files.writeString(dir.resolve("os-release"), "ID=debian\nIMAGE_ID=\"sextant-node\"\nIMAGE_VERSION=\"1.4.0\"\n");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    @DisplayName("is one machine-readable console line, printed once, and then the bootstrapper exits")
    void oneLineThenExit() throws Exception {
        BootstrapStatus status = status(true);
        var rejoined = new BringUpOutcome.Bootstrapped(BootstrapStatus.Role.WORKER, new DriverResult.NotInstalled("no k3s"),
                Via.REJOIN, "2026-11-24T03:00:00Z", new byte[0], EtcdStanding.NONE);
        status.bootstrapped(rejoined);
        status.bootstrapped(rejoined);
        assertEquals("SEXTANT-STATUS bootstrapped role=worker disk=none kubernetes=not-installed via=rejoin"
                        + " since=2026-11-24T03:00:00Z etcd=none image=1.4.0\n",
                console.toString(StandardCharsets.UTF_8));
        assertEquals(List.of(Duration.ofSeconds(2)), exits);
    }

    @Test
    @DisplayName("keeps the process when exiting is switched off")
    void noExitWhenDisabled() throws Exception {
        status(false).bootstrapped(new BringUpOutcome.Bootstrapped(BootstrapStatus.Role.CONTROL_PLANE,
                new DriverResult.Started(new byte[0]), Via.INIT, "2026-11-24T03:00:00Z", new byte[0], EtcdStanding.MEMBER));
        assertEquals("SEXTANT-STATUS bootstrapped role=control-plane disk=none kubernetes=started via=init"
                        + " since=2026-11-24T03:00:00Z etcd=member image=1.4.0\n",
                console.toString(StandardCharsets.UTF_8));
        assertEquals(List.of(), exits);
    }
}
