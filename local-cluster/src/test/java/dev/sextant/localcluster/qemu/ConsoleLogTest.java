package dev.sextant.localcluster.qemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The console log")
class ConsoleLogTest {
    @TempDir
    Path dir;

    private void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    @DisplayName("returns only complete lines, without CR LF, and picks up what is appended later")
    void readsCompleteLinesIncrementally() throws Exception {
        Path file = dir.resolve("console.log");
        ConsoleLog log = new ConsoleLog(file);
        assertEquals(List.of(), log.lines());

        append(file, "first\r\nsec");
        assertEquals(List.of("first"), log.lines());
        append(file, "ond \u00e9\nthird");
        assertEquals(List.of("first", "second \u00e9"), log.lines());
    }

    @Test
    @DisplayName("waits for a line written after the wait began and returns its match")
    void awaitsLaterLine() throws Exception {
        Path file = dir.resolve("console.log");
        ConsoleLog log = new ConsoleLog(file);
        Thread writer = new Thread(() -> {
            try {
                Thread.sleep(300);
                append(file, "booting\nSEXTANT-PCR 4 abc\n");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        writer.start();

        MatchResult match = log.await(Pattern.compile("SEXTANT-PCR 4 (\\w+)"), Duration.ofSeconds(10), Optional::empty);

        assertEquals("abc", match.group(1));
        writer.join();
    }

    @Test
    @DisplayName("times out with a message naming the pattern, the last line and the log file")
    void timeoutNamesWhatItWaitedFor() throws Exception {
        Path file = dir.resolve("console.log");
        append(file, "Probing EDD\n");
        ConsoleLog log = new ConsoleLog(file);

        TimeoutException e = assertThrows(TimeoutException.class,
                () -> log.await(Pattern.compile("SEXTANT-PCRS-DONE"), Duration.ofMillis(300), Optional::empty));

        assertTrue(e.getMessage().contains("SEXTANT-PCRS-DONE"), e.getMessage());
        assertTrue(e.getMessage().contains("Probing EDD"), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    @DisplayName("gives up at once when the producer has stopped, saying why")
    void stopsWhenProducerDied() throws Exception {
        ConsoleLog log = new ConsoleLog(dir.resolve("never-written.log"));

        TimeoutException e = assertThrows(TimeoutException.class, () -> log.await(Pattern.compile("x"),
                Duration.ofMinutes(5), () -> Optional.of("QEMU exited with code 1")));

        assertTrue(e.getMessage().startsWith("gave up: QEMU exited with code 1"), e.getMessage());
    }
}
