package dev.sextant.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a host tool to completion; a non-zero exit or a timeout fails with the tool's own output. */
final class Command {

    private Command() {
    }

    /** The result of a finished command: its exit code and its merged stdout/stderr. */
    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    /** Runs {@code argv}, returns its result whatever the exit code. */
    static Result run(Duration timeout, List<String> argv) throws IOException, InterruptedException {
        Path log = Files.createTempFile("sextant-images-cmd", ".log");
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                throw new IOException(argv.get(0) + " did not finish within " + timeout + ": "
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8).strip());
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Runs {@code argv} and returns its output; fails unless it exits 0. */
    static String check(Duration timeout, String... argv) throws IOException, InterruptedException {
        Result r = run(timeout, List.of(argv));
        if (!r.ok()) {
            throw new IOException(String.join(" ", argv) + " exited " + r.exitCode() + ": " + r.output());
        }
        return r.output();
    }

    /** Whether {@code tool} is an executable on the PATH. */
    static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
