package dev.sextant.diskcrypt;

import java.io.IOException;
import java.util.List;

/** Runs one external command to completion; a seam so the logic above cryptsetup is testable without it. */
@FunctionalInterface
public interface CommandRunner {
    Result run(List<String> argv, byte[] stdin) throws IOException, InterruptedException;

    record Result(int exitCode, String stdout, String stderr) {
        public boolean ok() {
            return exitCode == 0;
        }
    }
}
