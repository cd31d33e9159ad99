package dev.sextant.localcluster.qemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("A node's console history")
class ConsoleHistoryTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("keeps each earlier boot's console as console.<boot>.log; console.log is the current boot")
    void keepsEveryBoot() throws Exception {
        Path console = dir.resolve("console.log");
        assertEquals(Optional.empty(), ConsoleHistory.keepPrevious(console), "first boot: nothing to keep");
        Files.writeString(console, "boot 1\n");
        assertEquals(Optional.of(dir.resolve("console.1.log")), ConsoleHistory.keepPrevious(console));
        Files.writeString(console, "boot 2\n");
        assertEquals(Optional.of(dir.resolve("console.2.log")), ConsoleHistory.keepPrevious(console));
        assertFalse(Files.exists(console));
        assertEquals("boot 1\n", Files.readString(dir.resolve("console.1.log")));
        assertEquals("boot 2\n", Files.readString(dir.resolve("console.2.log")));
        assertEquals(List.of(console, dir.resolve("console.2.log"), dir.resolve("console.1.log")),
                ConsoleHistory.newestFirst(console));
    }

    @Test
    @DisplayName("drops an empty console (QEMU never wrote to it) instead of numbering a boot that printed nothing")
    void emptyConsoleIsNotABoot() throws Exception {
        Path console = Files.createFile(dir.resolve("console.log"));
        assertEquals(Optional.empty(), ConsoleHistory.keepPrevious(console));
        assertFalse(Files.exists(console));
        assertEquals(0, ConsoleHistory.lastBoot(dir));
    }

    @Test
    @DisplayName("numbers after the highest kept boot, whatever else lies in the directory")
    void numbersAfterHighest() throws Exception {
        Files.writeString(dir.resolve("console.7.log"), "x");
        Files.writeString(dir.resolve("console.x.log"), "x");
        Files.writeString(dir.resolve("console.log"), "current");
        assertEquals(Optional.of(dir.resolve("console.8.log")), ConsoleHistory.keepPrevious(dir.resolve("console.log")));
        assertTrue(Files.exists(dir.resolve("console.x.log")));
    }
}
