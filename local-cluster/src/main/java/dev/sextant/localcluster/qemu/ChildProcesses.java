package dev.sextant.localcluster.qemu;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Starts a node's helper programs (QEMU, swtpm) with their output in a file. */
final class ChildProcesses {
    private static final File DEV_NULL = new File("/dev/null");

    private ChildProcesses() {
    }

    /**
     * Starts {@code command} writing stdout and stderr to {@code output} (appended when asked). A
     * {@link Lifetime#DETACHED} process runs under setsid(1) in a session of its own, with stdin
     * from /dev/null, so neither the terminal's signals nor the JVM's exit reach it. setsid execs
     * the program in place (the child is no process-group leader), so the pid is the program's.
     */
    static Process start(List<String> command, Lifetime lifetime, Path output, boolean append) throws IOException {
        List<String> line = new ArrayList<>();
        if (lifetime == Lifetime.DETACHED) {
            line.add(HostTools.onPath("setsid").orElseThrow(() -> new IOException(
                    "setsid not on PATH (Debian package util-linux); it keeps the nodes running after the command exits"))
                    .toString());
        }
        line.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true)
                .redirectOutput(append ? ProcessBuilder.Redirect.appendTo(output.toFile())
                        : ProcessBuilder.Redirect.to(output.toFile()));
        if (lifetime == Lifetime.DETACHED) {
            builder.redirectInput(DEV_NULL);
        }
        return builder.start();
    }
}
