package dev.sextant.joinapi.plan;

import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fixed facts every ticket carries: the API server endpoint, the Kubernetes version, and the
 * measurement salt (read once from the join-config mount; it never changes for a cluster).
 */
@Singleton
public class ClusterInfo {
    private final String apiServerEndpoint;
    private final String kubernetesVersion;
    private final byte[] measurementSalt;

    @Inject
    public ClusterInfo(JoinServiceConfig config) {
        this(required(config.apiServerEndpoint()), config.kubernetesVersion(), config.measurementSaltFile());
    }

    private static String required(String apiServerEndpoint) {
        if (apiServerEndpoint.isBlank()) {
            throw new IllegalStateException(JoinServiceConfig.API_SERVER_ENDPOINT
                    + " is not set (host:port joining nodes reach the Kubernetes API at)");
        }
        return apiServerEndpoint;
    }

    public ClusterInfo(String apiServerEndpoint, String kubernetesVersion, Path measurementSaltFile) {
        this.apiServerEndpoint = apiServerEndpoint;
        this.kubernetesVersion = kubernetesVersion;
        try {
            this.measurementSalt = Files.readAllBytes(measurementSaltFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the measurement salt " + measurementSaltFile, e);
        }
    }

    public String apiServerEndpoint() {
        return apiServerEndpoint;
    }

    public String kubernetesVersion() {
        return kubernetesVersion;
    }

    public byte[] measurementSalt() {
        return measurementSalt.clone();
    }
}
