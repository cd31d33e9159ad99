package dev.sextant.attestation.testkit;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs host tools for peer tests; a missing tool skips the test with a printed reason. */
public final class Tools {
    private Tools() {}

    public static void assumeInstalled(String... tools) {
        for (String tool : tools) {
            boolean found = List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)).stream()
                    .anyMatch(dir -> new File(dir, tool).canExecute());
            if (!found) {
                System.out.println("SKIPPED: " + tool + " is not installed (scripts/setup.sh installs it)");
            }
            Assumptions.assumeTrue(found, tool + " is not installed (scripts/setup.sh installs it)");
        }
    }

    /** Runs a command in {@code dir}; returns its combined output, failing on a non-zero exit. */
    public static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " timed out");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + out);
        }
        return out;
    }
}
