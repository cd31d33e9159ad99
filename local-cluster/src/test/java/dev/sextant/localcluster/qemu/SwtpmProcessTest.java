package dev.sextant.localcluster.qemu;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("A swtpm process")
class SwtpmProcessTest {
    @TempDir
    Path dir;
    private Path swtpm;

    @BeforeEach
    void needsSwtpm() {
        Optional<Path> found = HostTools.onPath("swtpm");
        if (found.isEmpty()) {
            System.out.println("SKIP SwtpmProcessTest: swtpm not on PATH (Debian package swtpm)");
        }
        assumeTrue(found.isPresent(), "swtpm not on PATH (Debian package swtpm)");
        swtpm = found.get();
    }

    @Test
    @DisplayName("listens on its control socket once started and is gone after close, keeping its state dir")
    void startsAndStops() throws Exception {
        Path state = dir.resolve("state");
        SwtpmProcess tpm = SwtpmProcess.start(swtpm, state, dir.resolve("run"));
        try {
            assertTrue(tpm.isAlive());
            assertTrue(Files.exists(tpm.controlSocket()), "control socket " + tpm.controlSocket());
            assertTrue(tpm.stateDir().isAbsolute());
        } finally {
            tpm.close();
        }
        assertFalse(tpm.isAlive());
        assertTrue(Files.isDirectory(state));
    }

    @Test
    @DisplayName("restarts on the state directory of a previous run (a TPM prepared before boot)")
    void reusesStateDir() throws Exception {
        Path state = dir.resolve("state");
        SwtpmProcess.start(swtpm, state, dir.resolve("run1")).close();
        try (SwtpmProcess again = SwtpmProcess.start(swtpm, state, dir.resolve("run2"))) {
            assertTrue(again.isAlive());
            assertTrue(again.stateDir().equals(state.toAbsolutePath().normalize()));
        }
    }

    @Test
    @DisplayName("refuses a control socket path longer than a unix socket allows")
    void rejectsLongSocketPath() {
        Path deep = dir.resolve("x".repeat(120));
        IOException e = assertThrows(IOException.class, () -> SwtpmProcess.start(swtpm, dir.resolve("s"), deep));
        assertTrue(e.getMessage().contains("too long"), e.getMessage());
    }
}
