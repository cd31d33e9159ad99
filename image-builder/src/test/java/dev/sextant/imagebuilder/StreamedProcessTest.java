package dev.sextant.imagebuilder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A streamed build step")
class StreamedProcessTest {
    @Test
    @DisplayName("passes every output line, stdout and stderr, to the log under its prefix as it runs")
    void streamsWithPrefix() throws Exception {
        List<String> lines = new ArrayList<>();
        StreamedProcess.run(List.of("sh", "-c", "echo one; echo two >&2"), Path.of("."), "mkosi| ", lines::add);
        assertEquals(List.of("mkosi| one", "mkosi| two"), lines);
    }

    @Test
    @DisplayName("fails with the exit code and the program's last lines, so the cause is in the message")
    void failureNamesTail() {
        BuildException e = assertThrows(BuildException.class, () -> StreamedProcess.run(
                List.of("sh", "-c", "echo 'E: Unable to locate package foo'; exit 3"), Path.of("."), "", l -> { }));
        assertTrue(e.getMessage().contains("exit code 3") && e.getMessage().contains("Unable to locate package foo"),
                e.getMessage());
    }

    @Test
    @DisplayName("fails with a clear message when the program is not installed")
    void missingProgram() {
        BuildException e = assertThrows(BuildException.class, () -> StreamedProcess.run(
                List.of("no-such-mkosi-here"), Path.of("."), "", l -> { }));
        assertTrue(e.getMessage().startsWith("cannot run no-such-mkosi-here"), e.getMessage());
    }
}
