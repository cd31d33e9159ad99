package dev.sextant.measuredboot.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs host tools (the peers our own computations are checked against) and skips, with the reason, when one is missing. */
public final class Tools {
    public static final String UKIFY = "/usr/lib/systemd/ukify";
    public static final String MEASURE = "/usr/lib/systemd/systemd-measure";
    public static final String STUB_DIR = "/usr/lib/systemd/boot/efi";
    /** ukify needs Debian's python3 with python3-pefile, whatever python3 comes first on PATH. */
    public static final String PYTHON = "/usr/bin/python3";

    private Tools() {
    }

    public record Result(int exit, String out, String err) {
        public Result ok() {
            if (exit != 0) {
                throw new AssertionError("tool failed with " + exit + ": " + err + out);
            }
            return this;
        }
    }

    /** Skips the calling test, printing why, unless every tool exists and is executable. */
    public static void require(String... tools) {
        for (String t : tools) {
            Path p = t.contains("/") ? Path.of(t) : which(t);
            if (p == null || !Files.isExecutable(p)) {
                String reason = "SKIPPED: peer tool " + t + " is not installed (scripts/setup.sh installs it)";
                System.out.println(reason);
                Assumptions.assumeTrue(false, reason);
            }
        }
    }

    public static void skip(String reason) {
        System.out.println("SKIPPED: " + reason);
        Assumptions.assumeTrue(false, reason);
    }

    public static Path which(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        for (String dir : new String[] {"/usr/sbin", "/sbin"}) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    public static Result run(Path cwd, String... cmd) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(Arrays.asList(cmd));
        if (!c.get(0).contains("/")) {
            Path p = which(c.get(0));
            if (p != null) {
                c.set(0, p.toString());
            }
        }
        Path out = Files.createTempFile("tool", ".out");
        Path err = Files.createTempFile("tool", ".err");
        try {
            Process p = new ProcessBuilder(c).directory(cwd == null ? null : cwd.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + c);
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
