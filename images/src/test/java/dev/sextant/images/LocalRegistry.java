package dev.sextant.images;

import dev.sextant.attestation.testkit.FreePorts;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Debian's {@code docker-registry serve} (distribution 2.8) on 127.0.0.1 over plain HTTP, storing blobs
 * under the build directory. Plain HTTP on loopback is what Docker and Jib (with
 * {@code -Djib.allowInsecureRegistries=true}) accept without certificates.
 */
final class LocalRegistry implements AutoCloseable {
    private final Process process;
    private final int port;

    private LocalRegistry(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static LocalRegistry start(Path dir) throws IOException, InterruptedException {
        int port = FreePorts.loopback();
        Files.createDirectories(dir);
        Path config = dir.resolve("config.yml");
        Files.writeString(config, """
                version: 0.1
                log:
                  level: warn
                storage:
                  filesystem:
                    rootdirectory: %s
                  delete:
                    enabled: true
                http:
                  addr: 127.0.0.1:%d
                """.formatted(dir.resolve("data"), port));
        Process p = new ProcessBuilder("docker-registry", "serve", config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
        LocalRegistry registry = new LocalRegistry(p, port);
        registry.awaitReady(dir.resolve("registry.log"));
        return registry;
    }

    /** host:port, the prefix of image names in this registry. */
    String address() {
        return "127.0.0.1:" + port;
    }

    /**
     * What a pull downloads: the manifest's config and (compressed) layer sizes, read from the registry API.
     */
    long compressedSize(String repository, String tag) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://" + address() + "/v2/" + repository
                + "/manifests/" + tag).toURL().openConnection();
        c.setRequestProperty("Accept", "application/vnd.docker.distribution.manifest.v2+json, "
                + "application/vnd.oci.image.manifest.v1+json");
        try (var in = c.getInputStream()) {
            String manifest = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return java.util.regex.Pattern.compile("\"size\"\\s*:\\s*(\\d+)").matcher(manifest).results()
                    .mapToLong(m -> Long.parseLong(m.group(1))).sum();
        }
    }

    private void awaitReady(Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("docker-registry exited: " + Files.readString(log));
            }
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create("http://" + address() + "/v2/").toURL().openConnection();
                c.setConnectTimeout(500);
                if (c.getResponseCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(100);
        }
        throw new IOException("docker-registry did not answer /v2/ within 20 s: " + Files.readString(log));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
