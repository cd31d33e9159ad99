package dev.sextant.atls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU the JVM's C1/C2 compiler threads have used so far, for benchmarks that must tell warm-up from
 * steady cost: on a small, loaded machine C2 keeps compiling BouncyCastle, Netty and the verifier
 * long after a fixed warm-up, and what it takes in the measured window would otherwise count as the
 * cost of the code under test.
 */
public final class JitCpu {
    private JitCpu() {}

    /** Nanoseconds, from /proc/self/task/N/stat (Linux; 10 ms ticks); 0 where there is no /proc. */
    public static long nanos() {
        long ticks = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                ticks += compilerTicks(task);
            }
        } catch (IOException noProc) {
            return 0;
        }
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    }

    private static long compilerTicks(Path task) {
        try {
            String comm = Files.readString(task.resolve("comm"));
            if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) {
                return 0;
            }
            String stat = Files.readString(task.resolve("stat"));
            // After "pid (comm) " the state is field 3, so utime (14) and stime (15) are at 11 and 12.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException gone) {
            // The thread ended between listing and reading: its time is lost, as with any sampler.
            return 0;
        }
    }
}
