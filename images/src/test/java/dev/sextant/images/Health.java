package dev.sextant.images;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Polls a container's management /health until it answers 200, for the start-to-serving figure. */
final class Health {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private Health() {
    }

    /** The first 200 answer's body; fails with {@code diagnostics} after {@code timeout}. */
    static String await(int port, Duration timeout, java.util.function.Supplier<String> diagnostics)
            throws IOException, InterruptedException {
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = HTTP.send(get, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return r.body();
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException notYet) {
                last = notYet.toString(); // Docker's proxy accepts, then resets, until the app listens.
            }
            Thread.sleep(100);
        }
        throw new IOException("/health on " + port + " did not answer 200 within " + timeout + " (last: " + last
                + ")\n" + diagnostics.get());
    }
}
