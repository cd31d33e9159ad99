package dev.sextant.nodeboot.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.kubernetes.K3sDriver;
import dev.sextant.nodeboot.kubernetes.RestartSettings;
import dev.sextant.nodeboot.kubernetes.StandInK3s;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Attacks on the node's Kubernetes join token: any local process can read every command line in /proc. */
@DisplayName("Attacks on the node's k3s join token")
class KubernetesTokenAttacksTest {
    private static final String TOKEN = "K10abc::id.secret";

    @TempDir
    Path dir;

    @Test
    @DisplayName("any process reading k3s' command line in /proc for the join token (at join and at every restart): it is not there; k3s reads it from a 0600 file")
    void tokenIsNotOnTheCommandLine() throws Exception {
        StandInK3s k3s = StandInK3s.create(dir, 0);
        K3sDriver driver = new K3sDriver(k3s.settings());

        assertInstanceOf(DriverResult.Started.class, driver.joinCluster(new JoinSettings("node-b", "https://10.0.0.1:6443", TOKEN, false)));
        assertInstanceOf(DriverResult.Started.class, driver.restart(new RestartSettings("node-b", false, false, "https://10.0.0.1:6443", TOKEN)));

        for (String argv : k3s.invocations()) {
            assertFalse(argv.contains("id.secret"), argv);
        }
        Path tokenFile = k3s.settings().configFile().resolveSibling("token");
        assertEquals(TOKEN, Files.readString(tokenFile));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
    }
}
