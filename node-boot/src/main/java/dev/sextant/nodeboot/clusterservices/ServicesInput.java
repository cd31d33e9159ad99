package dev.sextant.nodeboot.clusterservices;

import dev.sextant.proto.v1.SignedMeasurements;

/**
 * What the services need from the init request: the KMS's master secret and salt, the measurement
 * salt, and what joining nodes must prove (signed measurements, EK CA bundle), plus the API server
 * endpoint tickets name and, when Kubernetes runs, the admin kubeconfig to deploy with. Holds
 * secrets: no toString with content.
 */
public record ServicesInput(byte[] masterSecret, byte[] masterSalt, byte[] measurementSalt,
                            SignedMeasurements joinMeasurements, String ekCaPem, String apiServerEndpoint,
                            byte[] kubeconfig) {
    @Override
    public String toString() {
        return "ServicesInput[apiServerEndpoint=" + apiServerEndpoint + ", secrets redacted]";
    }
}
