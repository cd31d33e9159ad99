package dev.sextant.serviceconfig;

import java.util.Map;
import java.util.Optional;

/**
 * The gRPC and management (health, metrics) ports of a Micronaut service; absent ones keep the
 * service's application.yml defaults.
 *
 * @param grpc       {@code grpc.server.port}
 * @param management {@code micronaut.server.port}
 */
public record ServerPorts(Optional<Integer> grpc, Optional<Integer> management) {
    public static final String GRPC_PORT = "grpc.server.port";
    public static final String MANAGEMENT_PORT = "micronaut.server.port";

    public static final ServerPorts DEFAULTS = new ServerPorts(Optional.empty(), Optional.empty());

    public ServerPorts {
        grpc.ifPresent(p -> PropertyReader.port(GRPC_PORT, Integer.toString(p)));
        management.ifPresent(p -> PropertyReader.port(MANAGEMENT_PORT, Integer.toString(p)));
    }

    public static ServerPorts of(int grpc, int management) {
        return new ServerPorts(Optional.of(grpc), Optional.of(management));
    }

    static ServerPorts from(PropertyReader r) {
        return new ServerPorts(r.text(GRPC_PORT).map(v -> PropertyReader.port(GRPC_PORT, v)),
                r.text(MANAGEMENT_PORT).map(v -> PropertyReader.port(MANAGEMENT_PORT, v)));
    }

    void putInto(Map<String, String> p) {
        grpc.ifPresent(v -> p.put(GRPC_PORT, Integer.toString(v)));
        management.ifPresent(v -> p.put(MANAGEMENT_PORT, Integer.toString(v)));
    }
}
