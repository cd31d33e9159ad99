package dev.sextant.joinapi;

import io.micronaut.runtime.Micronaut;

/**
 * Runs the join service: gRPC JoinService over client-attested aTLS on {@code grpc.server.port}
 * (9090), health and Prometheus metrics on the management HTTP port (9091).
 */
public final class Application {

    private Application() {
    }

    public static void main(String[] args) {
        Micronaut.build(args).mainClass(Application.class).banner(false).start();
    }
}
