package dev.sextant.diskcrypt;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Runs commands as child processes; stdin carries secrets so they never appear in argv. */
@jakarta.inject.Singleton
public final class ProcessCommandRunner implements CommandRunner {
    @Override
    public Result run(List<String> argv, byte[] stdin) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(argv).start();
        // Drain both pipes concurrently: a chatty command would block on a full pipe otherwise.
        CompletableFuture<String> out = drain(process.getInputStream());
        CompletableFuture<String> err = drain(process.getErrorStream());
        try (OutputStream in = process.getOutputStream()) {
            in.write(stdin);
        }
        int exit = process.waitFor();
        return new Result(exit, out.join(), err.join());
    }

    // Own threads, not the common pool: on a 2-core node that pool has one thread and would
    // serialise the two drains, which is the deadlock this avoids.
    private static CompletableFuture<String> drain(InputStream stream) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (stream) {
                result.complete(new String(stream.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                result.complete("(reading output failed: " + e.getMessage() + ")");
            }
        }, "command-output");
        reader.setDaemon(true);
        reader.start();
        return result;
    }
}
