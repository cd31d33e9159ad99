package dev.sextant.kms;

import io.micronaut.runtime.Micronaut;

/**
 * Runs the key service standalone: gRPC KeyService on the Unix socket {@code sextant.kms.socket}
 * ({@link KmsSocketServer}; no TCP port), health and Prometheus metrics on the management HTTP port
 * {@code micronaut.server.port} (9091).
 */
public final class Application {

    private Application() {
    }

    public static void main(String[] args) {
        // No ASCII-art banner: the output goes to a log collector, where it is five lines of noise.
        Micronaut.build(args).mainClass(Application.class).banner(false).start();
    }
}
