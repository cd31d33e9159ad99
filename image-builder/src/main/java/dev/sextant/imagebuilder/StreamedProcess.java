package dev.sextant.imagebuilder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs a long external program (mkosi, mvn) with its output streamed line by line under a prefix,
 * so an operator sees progress as it happens instead of minutes of silence.
 */
final class StreamedProcess {
    /** Enough of the end of the output to explain a failure in the exception message. */
    private static final int TAIL_LINES = 15;

    private StreamedProcess() {}

    static void run(List<String> command, Path directory, String prefix, Consumer<String> log)
            throws BuildException {
        Deque<String> tail = new ArrayDeque<>();
        int exit;
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .start();
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    log.accept(prefix + line);
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
            }
            exit = process.waitFor();
        } catch (IOException e) {
            throw new BuildException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BuildException("interrupted while running " + command.get(0), e);
        }
        if (exit != 0) {
            throw new BuildException(command.get(0) + " failed with exit code " + exit + "; its last lines:\n  "
                    + String.join("\n  ", tail));
        }
    }
}
